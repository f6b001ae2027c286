// Loads the real extension bundle (dist-test/extension.js) against a stand-in for the `vscode` module and
// checks what activation does when the server cannot be found: the commands it registers and the message.
import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import Module, { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, it } from 'node:test';

const require = createRequire(import.meta.url);
const BUNDLE = resolve('dist-test/extension.js');

/** A callable, constructible object whose every property is another such object. */
const anything = () =>
  new Proxy(function () {}, {
    get: (_, p) => (p === 'then' ? undefined : anything()),
    apply: () => anything(),
    construct: () => anything(),
  });

/** A fake `vscode` module recording commands and error messages; `settings` are the lobster.* values. */
function fakeVscode(settings) {
  const seen = { commands: [], errors: [] };
  const api = {
    commands: { registerCommand: (id) => (seen.commands.push(id), { dispose() {} }), executeCommand: async () => undefined },
    window: new Proxy({}, {
      get: (_, p) => (p === 'showErrorMessage' ? async (message) => void seen.errors.push(message) : p === 'activeTextEditor' ? undefined : anything()),
    }),
    workspace: new Proxy({}, {
      get: (_, p) => (p === 'getConfiguration' ? () => ({ get: (key, fallback) => settings[key] ?? fallback }) : () => ({ dispose() {} })),
    }),
    extensions: { getExtension: () => undefined },
  };
  const names = ['commands', 'window', 'workspace', 'extensions', 'env', 'Uri', 'EventEmitter', 'ViewColumn', 'Disposable', 'CancellationError'];
  const module = new Proxy(api, {
    get: (target, p) => target[p] ?? anything(),
    ownKeys: () => names,
    getOwnPropertyDescriptor: (target, p) => ({ enumerable: true, configurable: true, value: target[p] ?? anything() }),
  });
  return { module, seen };
}

async function activate(settings, path) {
  const { module, seen } = fakeVscode(settings);
  const resolveFilename = Module._resolveFilename;
  Module._resolveFilename = function (request, ...rest) {
    return request === 'vscode' ? 'vscode' : resolveFilename.call(this, request, ...rest);
  };
  require.cache.vscode = { id: 'vscode', filename: 'vscode', loaded: true, exports: module };
  delete require.cache[BUNDLE];
  const savedPath = process.env.PATH;
  process.env.PATH = path;
  try {
    await require(BUNDLE).activate({ subscriptions: [], extensionUri: anything() });
    await new Promise((done) => setTimeout(done, 20));
  } finally {
    process.env.PATH = savedPath;
    Module._resolveFilename = resolveFilename;
  }
  return seen;
}

/** A directory holding an executable `lobster` script with the given body. */
function fakeLobster(body) {
  const dir = mkdtempSync(join(tmpdir(), 'lobster-bin-'));
  writeFileSync(join(dir, 'lobster'), `#!/bin/sh\n${body}\n`);
  chmodSync(join(dir, 'lobster'), 0o755);
  return dir;
}

describe('activation without a working server', () => {
  it('registers every contributed command', async () => {
    const seen = await activate({}, '/nonexistent');
    const contributed = JSON.parse(readFileSync('package.json', 'utf8')).contributes.commands.map((c) => c.command);
    assert.deepEqual(seen.commands.sort(), contributed.sort());
  });

  it('says what it tried and how to install when nothing is there', async () => {
    const seen = await activate({ path: '/nowhere/lobster' }, '/nonexistent');
    assert.equal(seen.errors.length, 1);
    assert.match(seen.errors[0], /lobster\.path: the setting lobster\.path names "\/nowhere\/lobster", which does not exist/);
    assert.match(seen.errors[0], /PATH: `lobster` is not on PATH/);
    assert.match(seen.errors[0], /pipx install 'lobsterlang\[lsp\] @ git\+https:\/\/github\.com\/lobsterlang\/lobsterlang'/);
  });

  it('rejects a lobster on PATH whose version check fails, quoting its error', async () => {
    const dir = fakeLobster('echo "ModuleNotFoundError: No module named lobsterlang" >&2; exit 1');
    const seen = await activate({}, dir).finally(() => rmSync(dir, { recursive: true }));
    assert.equal(seen.errors.length, 1);
    assert.match(seen.errors[0], /PATH: `.*\/lobster version` failed \(ModuleNotFoundError: No module named lobsterlang\)/);
  });
});
