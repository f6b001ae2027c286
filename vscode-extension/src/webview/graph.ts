/** Runs inside the graph webview: renders the server's mermaid text with the bundled mermaid (no network). */
import mermaid from 'mermaid';
import type { GraphMessage } from '../graphHtml';

const element = (id: string): HTMLElement => {
  const found = document.getElementById(id);
  if (found === null) throw new Error(`graph page has no #${id}`);
  return found;
};

const isDark = (): boolean =>
  document.body.classList.contains('vscode-dark') || document.body.classList.contains('vscode-high-contrast');

mermaid.initialize({ startOnLoad: false, securityLevel: 'strict', theme: isDark() ? 'dark' : 'default' });

let renders = 0;

async function show(message: GraphMessage): Promise<void> {
  const error = element('error');
  if (message.type === 'error') {
    error.textContent = message.message;
    error.hidden = false;
    element('status').textContent = 'The graph could not be drawn; the last good graph stays below.';
    return;
  }
  try {
    renders += 1;
    const { svg } = await mermaid.render(`lobster-graph-${renders}`, message.text);
    element('graph').innerHTML = svg;
    error.hidden = true;
    element('status').textContent = message.source;
  } catch (failure) {
    error.textContent = `mermaid could not render the server's graph: ${String(failure)}\n\n${message.text}`;
    error.hidden = false;
  }
}

window.addEventListener('message', (event: MessageEvent<GraphMessage>) => {
  void show(event.data);
});
