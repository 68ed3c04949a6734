// What the owners part of tests/mcp/load-balancer.sh (lb_owners.mjs,
// lb_kept.mjs) speaks with: access tokens of the pinned authorization
// server (tests/mcp/auth/authorization-server.mjs, the authorization code
// grant with PKCE, signed in headlessly as each account), and revision
// 2026-07-28 JSON-RPC requests over `fetch` carrying them.

import * as crypto from 'node:crypto';
import { authorizeHeadless } from './auth/authorize-headless.mjs';

export const PROTOCOL = '2026-07-28';
export const TASKS = 'io.modelcontextprotocol/tasks';

const base64url = (bytes) => Buffer.from(bytes).toString('base64url');

/** An access token for `resource`, signed in as `account`; `fail` is
 * called with what went wrong. */
export async function token(info, account, resource, fail) {
  const client = info.clients.authorization_code;
  const redirect = client.redirect_uris[0];
  const verifier = base64url(crypto.randomBytes(32));
  const challenge = base64url(crypto.createHash('sha256').update(verifier).digest());
  const url = new URL(info.authorization_endpoint);
  url.search = new URLSearchParams({
    response_type: 'code',
    client_id: client.client_id,
    redirect_uri: redirect,
    code_challenge: challenge,
    code_challenge_method: 'S256',
    scope: 'tools:call',
    resource,
    state: account,
  }).toString();
  const back = await authorizeHeadless(url, { account });
  const code = back.searchParams.get('code');
  if (!code) fail(`no code for ${account}: ${back}`);
  const response = await fetch(info.token_endpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code,
      code_verifier: verifier,
      redirect_uri: redirect,
      client_id: client.client_id,
      resource,
    }),
  });
  const issued = await response.json();
  if (!issued.access_token) fail(`no token for ${account}: ${JSON.stringify(issued)}`);
  return issued.access_token;
}

/** The `_meta` of a request declaring `capabilities` (the tasks extension
 * unless said otherwise). */
export const metaOf = (capabilities = { extensions: { [TASKS]: {} } }) => ({
  'io.modelcontextprotocol/protocolVersion': PROTOCOL,
  'io.modelcontextprotocol/clientCapabilities': capabilities,
});

let nextId = 1;

/** The HTTP response to `method` by `bearer` (`name` in `Mcp-Name`),
 * `params` given `_meta` unless they have one, its body unread. */
export async function send(url, bearer, method, name, params) {
  const body = {
    jsonrpc: '2.0',
    id: nextId++,
    method,
    params: { _meta: metaOf(), ...params },
  };
  return fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      authorization: `Bearer ${bearer}`,
      'mcp-protocol-version': PROTOCOL,
      'mcp-method': method,
      'mcp-name': name,
    },
    body: JSON.stringify(body),
  });
}

/** The JSON-RPC message of an answer's body (its last event on a
 * stream), or `{ text }` when there is none. */
export function messageOf(text) {
  const data = text.split('\n').filter((line) => line.startsWith('data: ')).pop();
  try {
    return JSON.parse(data ? data.slice(6) : text);
  } catch {
    return { text };
  }
}

/** The JSON-RPC message answering `method` by `bearer`, and its HTTP
 * status. */
export async function rpc(url, bearer, method, name, params) {
  const response = await send(url, bearer, method, name, params);
  return { status: response.status, message: messageOf(await response.text()) };
}
