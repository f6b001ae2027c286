import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { contentSecurityPolicy, graphHtml, makeNonce } from '../../src/graphHtml';

const page = { cspSource: 'https://file+.vscode-resource.vscode-cdn.net', scriptUri: 'https://file+.vscode-resource.vscode-cdn.net/ext/dist/graph-webview.js', nonce: 'abc123', title: 'Graph of <a>.lobster' };

describe('graph page', () => {
  it('allows only the nonce-carrying script and nothing from the network', () => {
    const csp = contentSecurityPolicy(page);
    assert.match(csp, /^default-src 'none'/);
    assert.match(csp, /script-src 'nonce-abc123'(;|$)/);
    assert.doesNotMatch(csp, /unsafe-eval|\*|http:/);
    assert.doesNotMatch(csp.replaceAll(page.cspSource, ''), /https:/);
  });

  it('puts the policy in a meta tag and the nonce on the one script', () => {
    const html = graphHtml(page);
    assert.match(html, /<meta http-equiv="Content-Security-Policy" content="default-src &#39;none&#39;; script-src &#39;nonce-abc123&#39;/);
    assert.equal(html.match(/<script /g)?.length, 1);
    assert.match(html, /<script nonce="abc123" src="https:\/\/file\+\.vscode-resource\.vscode-cdn\.net\/ext\/dist\/graph-webview\.js"><\/script>/);
  });

  it('escapes the title', () => {
    assert.match(graphHtml(page), /<title>Graph of &lt;a&gt;\.lobster<\/title>/);
  });

  it('makes a different nonce each time', () => {
    const a = makeNonce();
    assert.notEqual(a, makeNonce());
    assert.ok(a.length >= 22);
  });
});
