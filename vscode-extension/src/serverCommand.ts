/** How the `lobster lsp` command line is chosen from the settings and the machine (pure: no `vscode` import). */

/** Installs `lobster` with its language server on PATH from the repository (lobsterlang is not on PyPI yet). */
export const INSTALL_COMMAND = "pipx install 'lobsterlang[lsp] @ git+https://github.com/lobsterlang/lobsterlang'";

/** The extension's settings that choose the server. Empty strings mean "not set". */
export interface ServerSettings {
  readonly path: string;
  readonly interpreter: string;
}

/** What the resolver may ask of the machine; the extension passes the real lookups, tests pass fakes. */
export interface Machine {
  /** The absolute path of `name` found on PATH, or undefined. */
  which(name: string): string | undefined;
  /** Whether `path` names an existing file. */
  exists(path: string): boolean;
  /** The interpreter of the Python extension's active environment, when that extension is installed. */
  readonly activePython?: string | undefined;
}

/** Where a candidate came from, in the order they are tried. */
export type CandidateSource = 'lobster.path' | 'lobster.interpreter' | 'PATH' | 'Python extension';

/** One way to start the server: `command args...` speaks LSP on stdio. */
export interface Candidate {
  readonly source: CandidateSource;
  readonly command: string;
  readonly args: readonly string[];
}

/** A candidate that is missing or did not start, with the reason shown to the user. */
export interface Rejection {
  readonly source: CandidateSource;
  readonly reason: string;
}

export interface Resolution {
  readonly candidates: readonly Candidate[];
  readonly rejected: readonly Rejection[];
}

const LSP_ARGS = ['lsp'];
const MODULE_ARGS = ['-m', 'lobsterlang', 'lsp'];

/**
 * The ways to start the server, best first: the `lobster.path` setting, the `lobster.interpreter`
 * setting (`<python> -m lobsterlang lsp`), `lobster` on PATH, then the Python extension's active
 * interpreter. A setting that names a missing file is rejected with a reason instead of ignored.
 */
export function resolveServer(settings: ServerSettings, machine: Machine): Resolution {
  const candidates: Candidate[] = [];
  const rejected: Rejection[] = [];
  const explicit = (source: CandidateSource, value: string, args: readonly string[]): void => {
    const command = value.trim();
    if (command === '') return;
    const found = isBareName(command) ? machine.which(command) : machine.exists(command) ? command : undefined;
    if (found === undefined) rejected.push({ source, reason: `the setting ${source} names "${command}", which does not exist` });
    else candidates.push({ source, command: found, args });
  };
  explicit('lobster.path', settings.path, LSP_ARGS);
  explicit('lobster.interpreter', settings.interpreter, MODULE_ARGS);
  const onPath = machine.which('lobster');
  if (onPath !== undefined) candidates.push({ source: 'PATH', command: onPath, args: LSP_ARGS });
  else rejected.push({ source: 'PATH', reason: '`lobster` is not on PATH' });
  if (machine.activePython !== undefined && machine.activePython !== '') {
    candidates.push({ source: 'Python extension', command: machine.activePython, args: MODULE_ARGS });
  } else {
    rejected.push({ source: 'Python extension', reason: 'no active Python environment (the Python extension is not installed or has none selected)' });
  }
  return { candidates, rejected };
}

function isBareName(command: string): boolean {
  return !command.includes('/') && !command.includes('\\');
}

/** The command line a candidate uses to check that lobsterlang is installed there (`... version`). */
export function probeArgs(candidate: Candidate): string[] {
  return [...candidate.args.slice(0, -1), 'version'];
}

/** The notification shown when no candidate works: what was tried and the install command. */
export function notFoundMessage(rejected: readonly Rejection[]): string {
  const tried = rejected.map((r) => `${r.source}: ${r.reason}`).join('; ');
  return (
    `Lobster: cannot start the language server (lobster lsp). Tried ${tried}. ` +
    `Install it with \`${INSTALL_COMMAND}\` (or \`pip install '.[lsp]'\` in a clone, into the active Python ` +
    'environment), or set "lobster.path" ' +
    'to the lobster executable (or "lobster.interpreter" to a Python that has it).'
  );
}

/** A readable form of a command line for the output channel. */
export function commandLine(candidate: Candidate): string {
  return [candidate.command, ...candidate.args].map((part) => (/[\s'"]/.test(part) ? JSON.stringify(part) : part)).join(' ');
}
