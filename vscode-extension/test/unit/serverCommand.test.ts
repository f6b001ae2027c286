import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type Machine, INSTALL_COMMAND, commandLine, notFoundMessage, probeArgs, resolveServer } from '../../src/serverCommand';

/** A machine with the given files (all executable) and PATH directories. */
function machine(files: string[], path: string[], activePython?: string): Machine {
  const present = new Set(files);
  return {
    exists: (file) => present.has(file),
    which: (name) => path.map((dir) => `${dir}/${name}`).find((file) => present.has(file)),
    activePython,
  };
}

const noSettings = { path: '', interpreter: '' };

describe('resolveServer', () => {
  it('tries the settings, then PATH, then the Python extension, in that order', () => {
    const m = machine(['/opt/lobster', '/venv/bin/python', '/usr/bin/lobster'], ['/usr/bin'], '/env/bin/python');
    const { candidates, rejected } = resolveServer({ path: '/opt/lobster', interpreter: '/venv/bin/python' }, m);
    assert.deepEqual(
      candidates.map((c) => [c.source, c.command, c.args.join(' ')]),
      [
        ['lobster.path', '/opt/lobster', 'lsp'],
        ['lobster.interpreter', '/venv/bin/python', '-m lobsterlang lsp'],
        ['PATH', '/usr/bin/lobster', 'lsp'],
        ['Python extension', '/env/bin/python', '-m lobsterlang lsp'],
      ],
    );
    assert.deepEqual(rejected, []);
  });

  it('uses lobster on PATH when nothing is set', () => {
    const { candidates } = resolveServer(noSettings, machine(['/usr/local/bin/lobster'], ['/bin', '/usr/local/bin']));
    assert.equal(candidates[0]?.command, '/usr/local/bin/lobster');
    assert.deepEqual(candidates[0]?.args, ['lsp']);
  });

  it('falls back to python -m lobsterlang in the active environment when lobster is not on PATH', () => {
    const { candidates, rejected } = resolveServer(noSettings, machine([], ['/usr/bin'], '/proj/.venv/bin/python'));
    assert.deepEqual(candidates, [{ source: 'Python extension', command: '/proj/.venv/bin/python', args: ['-m', 'lobsterlang', 'lsp'] }]);
    assert.deepEqual(rejected.map((r) => r.source), ['PATH']);
  });

  it('looks a bare command name in a setting up on PATH', () => {
    const { candidates } = resolveServer({ path: '', interpreter: 'python3' }, machine(['/usr/bin/python3'], ['/usr/bin']));
    assert.equal(candidates[0]?.source, 'lobster.interpreter');
    assert.equal(candidates[0]?.command, '/usr/bin/python3');
  });

  it('rejects a setting that names a missing file instead of silently ignoring it', () => {
    const { candidates, rejected } = resolveServer({ path: '/nope/lobster', interpreter: ' ' }, machine(['/usr/bin/lobster'], ['/usr/bin']));
    assert.deepEqual(candidates.map((c) => c.source), ['PATH']);
    assert.equal(rejected.length, 2);
    assert.match(rejected[0]?.reason ?? '', /lobster\.path names "\/nope\/lobster", which does not exist/);
  });

  it('has no candidate and says why for each place when nothing is installed', () => {
    const { candidates, rejected } = resolveServer(noSettings, machine([], ['/usr/bin']));
    assert.deepEqual(candidates, []);
    assert.deepEqual(rejected.map((r) => r.source), ['PATH', 'Python extension']);
  });
});

describe('messages', () => {
  it('the not-found notification lists what was tried and the install command', () => {
    const { rejected } = resolveServer({ path: '/x/lobster', interpreter: '' }, machine([], []));
    const message = notFoundMessage(rejected);
    assert.ok(message.includes(INSTALL_COMMAND), message);
    assert.equal(INSTALL_COMMAND, "pipx install 'lobsterlang[lsp] @ git+https://github.com/lobsterlang/lobsterlang'");
    assert.match(message, /lobster\.path: the setting lobster\.path names "\/x\/lobster"/);
    assert.match(message, /PATH: `lobster` is not on PATH/);
    assert.match(message, /Python extension: no active Python environment/);
  });

  it('probes with the version subcommand of the same program', () => {
    assert.deepEqual(probeArgs({ source: 'PATH', command: '/usr/bin/lobster', args: ['lsp'] }), ['version']);
    assert.deepEqual(probeArgs({ source: 'Python extension', command: 'py', args: ['-m', 'lobsterlang', 'lsp'] }), ['-m', 'lobsterlang', 'version']);
  });

  it('quotes command-line parts with spaces for the output channel', () => {
    assert.equal(commandLine({ source: 'lobster.path', command: '/My Tools/lobster', args: ['lsp'] }), '"/My Tools/lobster" lsp');
  });
});
