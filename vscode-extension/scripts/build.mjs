// Builds the extension: bundles the extension (Node) and the graph webview (browser, with mermaid)
// into dist/; the grammars in syntaxes/ are committed (`npm run grammars` regenerates them).
// `--production` minifies; `--tests` bundles test/unit into dist-test/
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { build } from 'esbuild';

const production = process.argv.includes('--production');
const tests = process.argv.includes('--tests');

const common = { bundle: true, minify: production, sourcemap: production ? false : 'linked', logLevel: 'warning', legalComments: 'none', metafile: true };

if (tests) {
  const entryPoints = readdirSync('test/unit').filter((f) => f.endsWith('.test.ts')).map((f) => `test/unit/${f}`);
  await build({ ...common, entryPoints, outdir: 'dist-test', platform: 'node', format: 'cjs', target: 'node20', sourcemap: false });
  // The real extension bundle, for test/unit/activation.test.mjs.
  await build({ ...common, entryPoints: ['src/extension.ts'], outfile: 'dist-test/extension.js', platform: 'node', format: 'cjs', target: 'node20', external: ['vscode'], sourcemap: false });
} else {
  const results = await Promise.all([
    build({ ...common, entryPoints: ['src/extension.ts'], outfile: 'dist/extension.js', platform: 'node', format: 'cjs', target: 'node20', external: ['vscode'] }),
    build({ ...common, entryPoints: ['src/webview/graph.ts'], outfile: 'dist/graph-webview.js', platform: 'browser', format: 'iife', target: 'es2022' }),
  ]);
  writeFileSync('dist/THIRD_PARTY_LICENSES.txt', thirdPartyLicenses(results.map((r) => r.metafile)));
}

/** The licence of every npm package bundled into dist/, found from esbuild's metafiles. */
function thirdPartyLicenses(metafiles) {
  const packages = new Set();
  for (const metafile of metafiles) {
    for (const input of Object.keys(metafile.inputs)) {
      const match = input.match(/node_modules\/((?:@[^/]+\/)?[^/]+)\//g);
      if (match) packages.add(match[match.length - 1].slice('node_modules/'.length, -1));
    }
  }
  const sections = [...packages].sort().map((name) => {
    const dir = `node_modules/${name}`;
    const manifest = JSON.parse(readFileSync(`${dir}/package.json`, 'utf8'));
    const file = readdirSync(dir).find((f) => /^(licen[cs]e|copying)/i.test(f));
    const text = file ? readFileSync(`${dir}/${file}`, 'utf8').trim() : `License: ${manifest.license ?? 'see the package'}`;
    return `${name}@${manifest.version} (${manifest.license ?? 'unknown'})\n\n${text}`;
  });
  return `The files in dist/ bundle these npm packages.\n\n${sections.join(`\n\n${'='.repeat(78)}\n\n`)}\n`;
}
