// Parses Mermaid texts with the real mermaid parser, as `mermaid.render` would before drawing.
// Input: a JSON array of texts on stdin. Output: one JSON array with, per text,
// {ok: true, type, config, nodes, edges} or {ok: false, error}. `config` is what the text's own
// directives (`%%{init: …}%%`) set; `nodes` and `edges` are the label texts as the renderer
// receives them, with mermaid's entity placeholders turned back into `&#…;` / `&…;` entities.
import { JSDOM } from "jsdom";

// mermaid sanitizes labels with DOMPurify, which needs a DOM window when it is first imported.
const { window } = new JSDOM("");
globalThis.window = window;
globalThis.document = window.document;
const { default: mermaid } = await import("mermaid");

const decodeEntities = (text) => text.replace(/\uFB02\xB0\xB0/g, "&#").replace(/\uFB02\xB0/g, "&").replace(/\xB6\xDF/g, ";");

async function readStdin() {
  let data = "";
  for await (const chunk of process.stdin) data += chunk;
  return data;
}

async function check(text) {
  try {
    const parsed = await mermaid.parse(text);
    const diagram = await mermaid.mermaidAPI.getDiagramFromText(text);
    const nodes = [...diagram.db.getVertices().values()].map((v) => decodeEntities(v.text));
    const edges = diagram.db.getEdges().map((e) => decodeEntities(e.text));
    return { ok: true, type: parsed.diagramType, config: parsed.config ?? {}, nodes, edges };
  } catch (error) {
    return { ok: false, error: String(error?.message ?? error) };
  }
}

const results = [];
for (const text of JSON.parse(await readStdin())) results.push(await check(text));
process.stdout.write(JSON.stringify(results) + "\n");
