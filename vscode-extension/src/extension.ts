/** The extension's entry point: starts `lobster lsp` and registers the Lobster commands. */
import * as vscode from 'vscode';
import { LobsterClient } from './client';
import { registerCommands } from './commands';

let lobster: LobsterClient | undefined;

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  lobster = new LobsterClient();
  context.subscriptions.push(lobster);
  registerCommands(context, lobster);
  context.subscriptions.push(
    vscode.workspace.onDidChangeConfiguration((event) => {
      if (event.affectsConfiguration('lobster.path') || event.affectsConfiguration('lobster.interpreter')) {
        void lobster?.restart();
      }
    }),
  );
  await lobster.start();
}

export async function deactivate(): Promise<void> {
  await lobster?.stop();
}
