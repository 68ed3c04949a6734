// A resource server through a signing-key rotation of its authorization
// server (tests/mcp/auth/authorization-server.mjs started with
// --key-rotation), without a restart of either:
//
//   "$MCP_NODE" tests/mcp/auth/key-rotation.mjs URL --issuer ISSUER \
//     [--scope "a b"] [--client-id ID] [--client-secret SECRET] [--settle-ms MS]
//
//  1. a token signed with the first key is served;
//  2. the authorization server rotates: a new key signs, the old one stays
//     published; a token signed with the new key is served (the resource
//     server fetches the JWKS again for the key id it does not know), and
//     so is the old token still;
//  3. the old key is withdrawn from the JWKS; once the resource server's
//     JWKS has outlived its lifetime (--settle-ms, more than the server's
//     JWKS cache lifetime), the old key's token gets 401 invalid_token and
//     the new key's, old and fresh, are served.
//
// Each request is a POST of `initialize` (revision 2025-11-25) with the
// token; "served" is 200. Prints one JSON line, {"ok":true,"steps":[...]}
// or {"ok":false,"step":...,"expected":...,"got":...} (exit status 1).

import { parseArgs } from 'node:util';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    issuer: { type: 'string' },
    scope: { type: 'string' },
    'client-id': { type: 'string' },
    'client-secret': { type: 'string' },
    'settle-ms': { type: 'string' },
  },
});
const [url] = positionals;
if (!url || !values.issuer) {
  process.stderr.write('usage: key-rotation.mjs URL --issuer ISSUER [--scope S] [--settle-ms MS]\n');
  process.exit(2);
}
const issuer = values.issuer;
const clientId = values['client-id'] ?? 'mcp-m2m';
const clientSecret = values['client-secret'] ?? 'mcp-m2m-secret';
const settle = Number(values['settle-ms'] ?? 1500);
const steps = [];

function fail(step, expected, got) {
  process.stdout.write(`${JSON.stringify({ ok: false, step, expected, got, steps })}\n`);
  process.exit(1);
}

/** A client-credentials token for the resource `url`, and its key id. */
async function token() {
  const body = new URLSearchParams({ grant_type: 'client_credentials', resource: url });
  if (values.scope) body.set('scope', values.scope);
  const response = await fetch(`${issuer}/token`, {
    method: 'POST',
    headers: { authorization: `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString('base64')}` },
    body,
  });
  const answer = await response.json();
  if (!response.ok || !answer.access_token) fail('token', 'an access token', answer);
  const header = JSON.parse(Buffer.from(answer.access_token.split('.')[0], 'base64url').toString());
  return { token: answer.access_token, kid: header.kid };
}

/** The status and challenge of an `initialize` with `token`. */
async function call(token) {
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'rotation', version: '1' } },
    }),
  });
  await response.arrayBuffer();
  return { status: response.status, challenge: response.headers.get('www-authenticate') };
}

async function expect(step, token, status) {
  const got = await call(token);
  if (got.status !== status) fail(step, status, got);
  if (status === 401 && !got.challenge?.startsWith('Bearer error="invalid_token"')) {
    fail(step, 'error="invalid_token"', got);
  }
  steps.push({ step, status });
}

async function keys(change) {
  const response = await fetch(`${issuer}/test/keys/${change}`, { method: 'POST' });
  if (!response.ok) fail(change, 200, response.status);
  return response.json();
}

const first = await token();
await expect('first key', first.token, 200);

const rotated = await keys('rotate');
const second = await token();
if (second.kid !== rotated.signing || second.kid === first.kid) {
  fail('rotate', `a token signed with ${rotated.signing}`, second.kid);
}
await expect('new key, unknown to the server until now', second.token, 200);
await expect('first key, still published', first.token, 200);

const withdrawn = await keys('withdraw');
if (withdrawn.kids.includes(first.kid)) fail('withdraw', `${first.kid} gone`, withdrawn.kids);
await new Promise((resolve) => { setTimeout(resolve, settle); });
await expect('first key, withdrawn', first.token, 401);
await expect('new key', second.token, 200);
const third = await token();
await expect('new key, a fresh token', third.token, 200);

process.stdout.write(`${JSON.stringify({ ok: true, kids: [first.kid, second.kid], steps })}\n`);
