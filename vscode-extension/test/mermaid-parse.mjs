// Parses mermaid texts with the mermaid package the graph webview bundles (under jsdom, as mermaid needs a
// DOM). Reads a JSON array of {name, text} on stdin; prints a JSON array of {name, error} (error null when
// the text parses). Used by tests/test_vscode_extension.py on the graphs lobsterlang draws.
import { JSDOM } from 'jsdom';

const window = new JSDOM('<!DOCTYPE html><body></body>').window;
globalThis.window = window;
globalThis.document = window.document;
const { default: mermaid } = await import('mermaid');
mermaid.initialize({ startOnLoad: false, securityLevel: 'strict' });

let input = '';
for await (const chunk of process.stdin) input += chunk;
const results = [];
for (const { name, text } of JSON.parse(input)) {
  try {
    await mermaid.parse(text);
    results.push({ name, error: null });
  } catch (error) {
    results.push({ name, error: String(error?.message ?? error).split('\n').slice(0, 4).join('\n') });
  }
}
process.stdout.write(JSON.stringify(results));
