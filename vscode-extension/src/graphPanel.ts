/** The "Lobster: Show graph" webview: asks the server for a mermaid graph and redraws it on save. */
import * as vscode from 'vscode';
import type { LobsterClient } from './client';
import { type GraphMessage, graphHtml, makeNonce } from './graphHtml';

/** The server's custom request (see the language server's contract). */
export const GRAPH_REQUEST = 'lobster/graph';

interface GraphResult {
  format: string;
  text: string;
}

export class GraphPanel {
  private static readonly panels = new Map<string, GraphPanel>();
  private readonly disposables: vscode.Disposable[] = [];

  static show(context: vscode.ExtensionContext, lobster: LobsterClient, uri: vscode.Uri): void {
    const existing = GraphPanel.panels.get(uri.toString());
    if (existing !== undefined) {
      existing.panel.reveal(vscode.ViewColumn.Beside, true);
      void existing.refresh();
      return;
    }
    const panel = vscode.window.createWebviewPanel('lobster.graph', `Graph: ${basename(uri)}`, { viewColumn: vscode.ViewColumn.Beside, preserveFocus: true }, {
      enableScripts: true,
      localResourceRoots: [vscode.Uri.joinPath(context.extensionUri, 'dist')],
      retainContextWhenHidden: false,
    });
    GraphPanel.panels.set(uri.toString(), new GraphPanel(panel, context, lobster, uri));
  }

  private constructor(
    private readonly panel: vscode.WebviewPanel,
    context: vscode.ExtensionContext,
    private readonly lobster: LobsterClient,
    private readonly uri: vscode.Uri,
  ) {
    const script = vscode.Uri.joinPath(context.extensionUri, 'dist', 'graph-webview.js');
    panel.webview.html = graphHtml({
      cspSource: panel.webview.cspSource,
      scriptUri: panel.webview.asWebviewUri(script).toString(),
      nonce: makeNonce(),
      title: `Graph of ${basename(uri)}`,
    });
    this.disposables.push(
      vscode.workspace.onDidSaveTextDocument((document) => {
        if (document.uri.toString() === uri.toString()) void this.refresh();
      }),
      panel.onDidChangeViewState(() => {
        if (panel.visible) void this.refresh();
      }),
      panel.onDidDispose(() => this.dispose()),
    );
    void this.refresh();
  }

  async refresh(): Promise<void> {
    const client = this.lobster.running;
    if (client === undefined) {
      await this.post({ type: 'error', message: 'The Lobster language server is not running; see the "Lobster Language Server" output.' });
      return;
    }
    try {
      const result = await client.sendRequest<GraphResult>(GRAPH_REQUEST, { textDocument: { uri: this.uri.toString() }, format: 'mermaid' });
      await this.post({ type: 'graph', text: result.text, source: `${basename(this.uri)}, as last saved at ${new Date().toLocaleTimeString()}` });
    } catch (error) {
      await this.post({ type: 'error', message: error instanceof Error ? error.message : String(error) });
    }
  }

  private async post(message: GraphMessage): Promise<void> {
    await this.panel.webview.postMessage(message);
  }

  private dispose(): void {
    GraphPanel.panels.delete(this.uri.toString());
    for (const disposable of this.disposables) disposable.dispose();
  }
}

function basename(uri: vscode.Uri): string {
  return uri.path.split('/').pop() ?? uri.path;
}
