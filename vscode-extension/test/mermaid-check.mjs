// Reads Mermaid texts with the mermaid package the graph webview bundles (under jsdom, as mermaid needs a DOM),
// for the Python tests (tests/test_graph_mermaid.py, tests/test_graph_drawn.py, tests/test_vscode_extension.py):
// one npm install serves the extension and them.
// Input: a JSON array of texts on stdin. Output: one JSON array with, per text, {ok: true, type, config, nodes,
// edges} or {ok: false, error}. `config` is what the text's own directives (`%%{init: …}%%`) set; `nodes` and
// `edges` are the label texts as the renderer receives them, with mermaid's entity placeholders turned back into
// `&#…;` / `&…;` entities. With --draw, each text is also rendered as the webview renders it, and `drawn` holds
// what the SVG shows: {nodes: {key: [line, …]}, edges: [[line, …], …]}, each label split at its line breaks.
import { JSDOM } from 'jsdom';

const { window } = new JSDOM('<!DOCTYPE html><body></body>');
globalThis.window = window;
globalThis.document = window.document;
globalThis.CSSStyleSheet = window.CSSStyleSheet;
// jsdom lays nothing out: a size for every SVG element, so that mermaid can place the labels it draws.
window.SVGElement.prototype.getBBox = function () {
  return { x: 0, y: 0, width: 8 * (this.textContent?.length ?? 1), height: 16 };
};
window.SVGElement.prototype.getComputedTextLength = function () {
  return 8 * (this.textContent?.length ?? 1);
};
window.HTMLElement.prototype.getBoundingClientRect = function () {
  const width = 8 * Math.max(1, ...(this.textContent ?? '').split('\n').map((line) => line.length));
  return { x: 0, y: 0, top: 0, left: 0, width, height: 24, right: width, bottom: 24 };
};
const { default: mermaid } = await import('mermaid');
mermaid.initialize({ startOnLoad: false, securityLevel: 'strict' });

const decodeEntities = (text) => text.replace(/\uFB02\xB0\xB0/g, '&#').replace(/\uFB02\xB0/g, '&').replace(/\xB6\xDF/g, ';');

async function readStdin() {
  let data = '';
  for await (const chunk of process.stdin) data += chunk;
  return data;
}

/** The text a label element shows, line by line: split at <br>, each part as the browser shows it. */
function shownLines(element) {
  const scratch = window.document.createElement('div');
  return element.innerHTML.split(/<br\s*\/?>/i).map((part) => {
    scratch.innerHTML = part;
    return scratch.textContent;
  });
}

async function draw(text, index) {
  const { svg } = await mermaid.render(`lobster-graph-${index}`, text);
  const holder = window.document.createElement('div');
  holder.innerHTML = svg;
  const nodes = {};
  for (const node of holder.querySelectorAll('g.node')) {
    const key = node.id.replace(/^lobster-graph-\d+-flowchart-/, '').replace(/-\d+$/, '');
    nodes[key] = shownLines(node.querySelector('.nodeLabel p') ?? node.querySelector('.nodeLabel'));
  }
  const edges = [...holder.querySelectorAll('g.edgeLabels span.edgeLabel')].map((label) => shownLines(label.querySelector('p') ?? label));
  return { nodes, edges };
}

async function check(text, index, drawing) {
  try {
    const parsed = await mermaid.parse(text);
    const diagram = await mermaid.mermaidAPI.getDiagramFromText(text);
    const nodes = [...diagram.db.getVertices().values()].map((v) => decodeEntities(v.text));
    const edges = diagram.db.getEdges().map((e) => decodeEntities(e.text));
    const result = { ok: true, type: parsed.diagramType, config: parsed.config ?? {}, nodes, edges };
    if (drawing) result.drawn = await draw(text, index);
    return result;
  } catch (error) {
    return { ok: false, error: String(error?.message ?? error) };
  }
}

const drawing = process.argv.includes('--draw');
const results = [];
for (const [index, text] of JSON.parse(await readStdin()).entries()) results.push(await check(text, index, drawing));
process.stdout.write(JSON.stringify(results) + '\n');
