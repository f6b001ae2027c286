// Checks that package.json, the generated grammars and the sources agree (no feature only in the manifest).
import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { describe, it } from 'node:test';
import { grammars } from '../../scripts/grammars.mjs';

const manifest = JSON.parse(readFileSync('package.json', 'utf8'));
const sources = ['src/commands.ts', 'src/extension.ts'].map((f) => readFileSync(f, 'utf8')).join('\n');

describe('manifest', () => {
  it('the committed grammars are what scripts/grammars.mjs generates', () => {
    for (const [file, grammar] of Object.entries(grammars())) {
      assert.equal(readFileSync(`syntaxes/${file}`, 'utf8'), JSON.stringify(grammar, null, 2) + '\n', `syntaxes/${file} is stale: run npm run grammars`);
    }
  });

  it('every contributed file exists', () => {
    const c = manifest.contributes;
    const paths = [...c.grammars.map((g) => g.path), ...c.snippets.map((s) => s.path), ...c.languages.map((l) => l.configuration), manifest.icon];
    for (const path of paths) assert.ok(existsSync(path), path);
  });

  it('every contributed command is registered, and none takes an id the server registers', () => {
    for (const { command } of manifest.contributes.commands) {
      assert.ok(sources.includes(`'${command}'`), `${command} is not registered in src/`);
      assert.ok(!['lobster.dryRun', 'lobster.graph'].includes(command), `${command} clashes with a server command`);
    }
  });

  it('engines.vscode matches what vscode-languageclient needs, and @types/vscode is not newer', () => {
    assert.equal(manifest.engines.vscode, '^1.91.0');
    assert.match(manifest.devDependencies['@types/vscode'], /^~1\.91\./);
    const client = JSON.parse(readFileSync('node_modules/vscode-languageclient/package.json', 'utf8'));
    assert.equal(client.engines.vscode, manifest.engines.vscode);
  });

  it('the shell embedded in run:/command: maps to the shellscript language', () => {
    for (const grammar of manifest.contributes.grammars) {
      assert.equal(grammar.embeddedLanguages['meta.embedded.block.shellscript'], 'shellscript');
      assert.equal(grammar.embeddedLanguages['meta.embedded.line.shellscript'], 'shellscript');
    }
  });

  it('every scope the grammars give is asserted by a syntax test in test/grammar', () => {
    const scopes = new Set();
    const collect = (node) => {
      if (Array.isArray(node)) node.forEach(collect);
      else if (node !== null && typeof node === 'object') {
        for (const [key, value] of Object.entries(node)) {
          if ((key === 'name' || key === 'contentName') && typeof value === 'string') value.split(' ').forEach((s) => scopes.add(s));
          else collect(value);
        }
      }
    };
    const all = grammars();
    delete all['lobster.tmLanguage.json'].name; // the display name, not a scope
    collect(Object.values(all));
    const tests = readdirSync('test/grammar').map((f) => readFileSync(`test/grammar/${f}`, 'utf8')).join('\n');
    const untested = [...scopes].filter((scope) => !new RegExp(`^#[ ^<-]*\\^.*[ ]${scope.replaceAll('.', '\\.')}(?: |$)`, 'm').test(tests));
    assert.deepEqual(untested, []);
  });
});
