/** The graph preview's HTML page and its content security policy (pure: no `vscode` import). */
import { randomBytes } from 'node:crypto';

export interface GraphPage {
  /** `webview.cspSource`: the origin the webview may load the bundled script and styles from. */
  readonly cspSource: string;
  /** The webview URI of dist/graph-webview.js (mermaid bundled in, no network). */
  readonly scriptUri: string;
  readonly nonce: string;
  readonly title: string;
}

/** A fresh nonce for one page load (base64 of 16 random bytes). */
export function makeNonce(): string {
  return randomBytes(16).toString('base64');
}

/**
 * The page's policy: nothing from the network; only the one script carrying the nonce runs;
 * inline styles are allowed because mermaid writes its SVG styles inline.
 */
export function contentSecurityPolicy(page: Pick<GraphPage, 'cspSource' | 'nonce'>): string {
  return [
    "default-src 'none'",
    `script-src 'nonce-${page.nonce}'`,
    `style-src ${page.cspSource} 'unsafe-inline'`,
    `img-src ${page.cspSource} data:`,
    `font-src ${page.cspSource}`,
  ].join('; ');
}

const escapeHtml = (text: string): string =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c);

export function graphHtml(page: GraphPage): string {
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${escapeHtml(contentSecurityPolicy(page))}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<title>${escapeHtml(page.title)}</title>
<style>
  body { padding: 0.5rem 1rem; }
  #status { color: var(--vscode-descriptionForeground); font-size: 0.9em; }
  #error { color: var(--vscode-errorForeground); white-space: pre-wrap; font-family: var(--vscode-editor-font-family); }
  #graph svg { max-width: 100%; height: auto; }
</style>
</head>
<body>
<div id="status">Waiting for the language server…</div>
<pre id="error" hidden></pre>
<div id="graph"></div>
<script nonce="${page.nonce}" src="${escapeHtml(page.scriptUri)}"></script>
</body>
</html>
`;
}

/** Messages from the extension to the webview. */
export type GraphMessage =
  | { readonly type: 'graph'; readonly text: string; readonly source: string }
  | { readonly type: 'error'; readonly message: string };
