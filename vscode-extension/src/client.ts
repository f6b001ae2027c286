/** Owns the language client: finds the server command, starts, stops and restarts it. */
import { execFile } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';
import * as vscode from 'vscode';
import { LanguageClient, type LanguageClientOptions, type ServerOptions, TransportKind } from 'vscode-languageclient/node';
import {
  type Candidate,
  type Rejection,
  INSTALL_COMMAND,
  commandLine,
  notFoundMessage,
  probeArgs,
  resolveServer,
} from './serverCommand';
import { activePythonInterpreter } from './python';

const PROBE_TIMEOUT_MS = 15_000;

export class LobsterClient implements vscode.Disposable {
  readonly output = vscode.window.createOutputChannel('Lobster Language Server', { log: true });
  private client: LanguageClient | undefined;

  /** The running client, or undefined (with the reason already shown) when the server is not running. */
  get running(): LanguageClient | undefined {
    return this.client?.isRunning() === true ? this.client : undefined;
  }

  async start(): Promise<void> {
    const candidate = await this.findServer();
    if (candidate === undefined) return;
    this.output.appendLine(`Starting the language server: ${commandLine(candidate)} (from ${candidate.source})`);
    const serverOptions: ServerOptions = { command: candidate.command, args: [...candidate.args], transport: TransportKind.stdio };
    const clientOptions: LanguageClientOptions = {
      documentSelector: [{ language: 'lobster' }],
      outputChannel: this.output,
      traceOutputChannel: this.output,
    };
    // The id 'lobster' makes the client read the `lobster.trace.server` setting.
    this.client = new LanguageClient('lobster', 'Lobster Language Server', serverOptions, clientOptions);
    try {
      await this.client.start();
    } catch (error) {
      this.output.appendLine(`The language server did not start: ${String(error)}`);
      void showNotFound([{ source: candidate.source, reason: `${commandLine(candidate)} failed: ${String(error)}` }]);
    }
  }

  async stop(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    if (client?.isRunning() === true) await client.stop();
  }

  async restart(): Promise<void> {
    await this.stop();
    await this.start();
  }

  dispose(): void {
    void this.stop();
    this.output.dispose();
  }

  private async findServer(): Promise<Candidate | undefined> {
    const config = vscode.workspace.getConfiguration('lobster');
    const resource = vscode.window.activeTextEditor?.document.uri;
    const resolution = resolveServer(
      { path: config.get<string>('path', ''), interpreter: config.get<string>('interpreter', '') },
      { which, exists, activePython: await activePythonInterpreter(resource) },
    );
    const rejected: Rejection[] = [...resolution.rejected];
    for (const candidate of resolution.candidates) {
      const failure = await probe(candidate);
      if (failure === undefined) return candidate;
      this.output.appendLine(`${commandLine(candidate)}: ${failure}`);
      rejected.push({ source: candidate.source, reason: failure });
    }
    void showNotFound(rejected);
    return undefined;
  }
}

async function showNotFound(rejected: readonly Rejection[]): Promise<void> {
  const copy = 'Copy install command';
  const settings = 'Open settings';
  const choice = await vscode.window.showErrorMessage(notFoundMessage(rejected), copy, settings);
  if (choice === copy) await vscode.env.clipboard.writeText(INSTALL_COMMAND);
  if (choice === settings) await vscode.commands.executeCommand('workbench.action.openSettings', 'lobster.');
}

/** Runs `<candidate> version`; undefined when lobsterlang answers, else why not. */
function probe(candidate: Candidate): Promise<string | undefined> {
  return new Promise((resolve) => {
    execFile(candidate.command, probeArgs(candidate), { timeout: PROBE_TIMEOUT_MS }, (error, _stdout, stderr) => {
      if (error === null) resolve(undefined);
      else resolve(`\`${[candidate.command, ...probeArgs(candidate)].join(' ')}\` failed (${stderr.trim().split('\n').pop() ?? error.message})`);
    });
  });
}

function exists(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function which(name: string): string | undefined {
  const extensions = process.platform === 'win32' ? (process.env.PATHEXT ?? '.EXE;.CMD;.BAT').split(';') : [''];
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (dir === '') continue;
    for (const extension of extensions) {
      const candidate = join(dir, name + extension);
      if (exists(candidate)) return candidate;
    }
  }
  return undefined;
}
