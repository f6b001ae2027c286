// Tokenizes every workflow file in the repository (examples/ and the test corpora) with the full grammar
// stack and checks that no embedded language runs past its value: each `id:` key outside a block scalar
// is still a YAML key, not pipeline, condition, shell or string text.
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { describe, it } from 'node:test';

const require = createRequire(import.meta.url);
const textmate = require('vscode-textmate');
const oniguruma = require('vscode-oniguruma');

const manifest = JSON.parse(readFileSync('package.json', 'utf8'));
const GRAMMARS = {
  'source.yaml': 'node_modules/tm-grammars/grammars/yaml.json',
  'source.shell': 'node_modules/tm-grammars/grammars/shellscript.json',
  ...Object.fromEntries(manifest.contributes.grammars.map((g) => [g.scopeName, g.path])),
};
const INJECTIONS = manifest.contributes.grammars.filter((g) => g.injectTo).map((g) => g.scopeName);

async function lobsterGrammar() {
  await oniguruma.loadWASM(readFileSync(require.resolve('vscode-oniguruma/release/onig.wasm')).buffer);
  const registry = new textmate.Registry({
    onigLib: Promise.resolve({ createOnigScanner: (p) => new oniguruma.OnigScanner(p), createOnigString: (s) => new oniguruma.OnigString(s) }),
    loadGrammar: async (scope) => (GRAMMARS[scope] ? textmate.parseRawGrammar(readFileSync(GRAMMARS[scope], 'utf8'), GRAMMARS[scope]) : null),
    getInjections: (scope) => (scope === 'source.lobster' ? INJECTIONS : []),
  });
  return registry.loadGrammar('source.lobster');
}

function workflowFiles(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return workflowFiles(path);
    return entry.name.endsWith('.lobster') ? [path] : [];
  });
}

const BLOCK_SCALAR = /:[ \t]+[|>][-+0-9]*[ \t]*(?:#.*)?$/;
const ID_KEY = /^([ \t]*)(?:-[ \t]+)?id:(?:[ \t]|$)/;

/** The 0-based lines holding an `id:` key that YAML sees as a key (not inside a block scalar). */
function idKeyLines(lines) {
  const found = [];
  let blockIndent = -1; // the indentation of the key that opened the current block scalar
  lines.forEach((line, index) => {
    const indent = line.length - line.trimStart().length;
    if (blockIndent >= 0 && (line.trim() === '' || indent > blockIndent)) return;
    blockIndent = -1;
    if (ID_KEY.test(line)) found.push(index);
    if (BLOCK_SCALAR.test(line)) blockIndent = indent;
  });
  return found;
}

describe('corpus', () => {
  it('no value spills into the next step in any workflow file of the repository', async () => {
    const grammar = await lobsterGrammar();
    const files = [...workflowFiles('../examples'), ...workflowFiles('../tests')];
    assert.ok(files.length > 100, `only ${files.length} workflow files found`);
    const spills = [];
    let checked = 0;
    for (const file of files) {
      const lines = readFileSync(file, 'utf8').split(/\r?\n/);
      const keys = new Set(idKeyLines(lines));
      let stack = textmate.INITIAL;
      lines.forEach((line, index) => {
        const { tokens, ruleStack } = grammar.tokenizeLine(line, stack);
        stack = ruleStack;
        if (!keys.has(index)) return;
        checked += 1;
        const column = line.indexOf('id:');
        const token = tokens.find((t) => t.startIndex <= column && column < t.endIndex);
        const scopes = token?.scopes ?? [];
        if (!scopes.includes('entity.name.tag.yaml') || scopes.some((s) => /^(meta\.embedded|string\.quoted)/.test(s))) {
          spills.push(`${file}:${index + 1}: ${scopes.join(' ')}`);
        }
      });
    }
    assert.ok(checked > 300, `only ${checked} id keys checked`);
    assert.deepEqual(spills, []);
  });
});
