/** The Lobster commands: dry run, graph preview, format, restart. Each asks the server; none has language logic. */
import * as vscode from 'vscode';
import { ExecuteCommandRequest, type LanguageClient } from 'vscode-languageclient/node';
import type { LobsterClient } from './client';
import { GraphPanel } from './graphPanel';

/** Server-side commands (workspace/executeCommand). The client registers these ids itself, so ours differ. */
export const SERVER_DRY_RUN = 'lobster.dryRun';

const DRY_RUN_SCHEME = 'lobster-dry-run';

export function registerCommands(context: vscode.ExtensionContext, lobster: LobsterClient): void {
  const dryRuns = new DryRunDocuments();
  context.subscriptions.push(
    vscode.workspace.registerTextDocumentContentProvider(DRY_RUN_SCHEME, dryRuns),
    vscode.commands.registerCommand('lobster.showDryRun', () => showDryRun(lobster, dryRuns)),
    vscode.commands.registerCommand('lobster.showGraph', () => {
      const document = lobsterDocument();
      if (document !== undefined) GraphPanel.show(context, lobster, document.uri);
    }),
    vscode.commands.registerCommand('lobster.formatDocument', async () => {
      if (lobsterDocument() !== undefined) await vscode.commands.executeCommand('editor.action.formatDocument');
    }),
    vscode.commands.registerCommand('lobster.restartServer', async () => {
      lobster.output.appendLine('Restarting the language server (Lobster: Restart server).');
      await lobster.restart();
    }),
  );
}

/** The active editor's document when it is a Lobster file; otherwise says so and returns undefined. */
function lobsterDocument(): vscode.TextDocument | undefined {
  const document = vscode.window.activeTextEditor?.document;
  if (document?.languageId === 'lobster') return document;
  void vscode.window.showWarningMessage('Lobster: open a .lobster workflow file first.');
  return undefined;
}

/** The running client, or undefined after telling the user the server is not running. */
function runningClient(lobster: LobsterClient): LanguageClient | undefined {
  const client = lobster.running;
  if (client === undefined) {
    void vscode.window.showErrorMessage('Lobster: the language server is not running; see the "Lobster Language Server" output.');
  }
  return client;
}

async function showDryRun(lobster: LobsterClient, dryRuns: DryRunDocuments): Promise<void> {
  const document = lobsterDocument();
  const client = runningClient(lobster);
  if (document === undefined || client === undefined) return;
  try {
    const text: unknown = await client.sendRequest(ExecuteCommandRequest.type, {
      command: SERVER_DRY_RUN,
      arguments: [document.uri.toString()],
    });
    const uri = dryRuns.set(document.uri, typeof text === 'string' ? text : JSON.stringify(text, null, 2));
    const shown = await vscode.workspace.openTextDocument(uri);
    await vscode.window.showTextDocument(shown, { viewColumn: vscode.ViewColumn.Beside, preview: true, preserveFocus: true });
  } catch (error) {
    void vscode.window.showErrorMessage(`Lobster: dry run failed: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** Read-only virtual documents holding the last dry run of each workflow file. */
class DryRunDocuments implements vscode.TextDocumentContentProvider {
  private readonly texts = new Map<string, string>();
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;

  set(source: vscode.Uri, text: string): vscode.Uri {
    const uri = vscode.Uri.from({ scheme: DRY_RUN_SCHEME, path: `${source.path}.dry-run.txt`, query: source.toString() });
    this.texts.set(uri.toString(), text);
    this.changed.fire(uri);
    return uri;
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.texts.get(uri.toString()) ?? '';
  }
}
