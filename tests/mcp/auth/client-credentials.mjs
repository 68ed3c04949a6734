// An MCP client that authorizes with the OAuth client-credentials grant,
// through the official TypeScript SDK v2 client (`@modelcontextprotocol/client`
// 2.4.0, pinned in tests/mcp/package.json): its `ClientCredentialsProvider`
// on a `StreamableHTTPClientTransport`. It connects to the MCP server at URL,
// lists the tools and calls TOOL with the JSON arguments ARGS (default {}).
//
//   . tests/mcp/auth/node.sh
//   "$MCP_NODE" tests/mcp/auth/client-credentials.mjs URL TOOL [ARGS] \
//     [--client-id ID] [--client-secret SECRET] [--issuer ISSUER] \
//     [--scope "a b"] [--mode auto|legacy|2026-07-28] [--step-up SCOPE]
//
// --client-id / --client-secret default to AS_CLIENT_ID / AS_CLIENT_SECRET,
// then mcp-m2m / mcp-m2m-secret (tests/mcp/auth/authorization-server.mjs's
// defaults). --issuer (or AS_ISSUER) is the authorization server the
// credentials belong to (the provider's `expectedIssuer`: the SDK refuses to
// send them to any other); without it the SDK warns and uses whichever the
// server names. --scope is the provider's `scope`, used only when neither
// the 401 challenge nor the resource metadata names one. --mode is the
// client's version negotiation (default legacy: `initialize`). --step-up
// says TOOL needs SCOPE, a scope of its own the first token lacks: the
// client then checks that the listing left TOOL out, that its call was
// refused 403 insufficient_scope with SCOPE in the challenge's scope, that
// one more token was asked for with SCOPE, and that the call then succeeded
// (stage "step-up" otherwise; `stepped_up` in the result line).
//
// Every HTTP request the SDK makes goes through a logging fetch: one JSON
// line on stderr each (`{"http":"POST URL","status":401,...}`, the token
// request's form parameters with the secret left out, the scheme of its
// Authorization header, its MCP-Protocol-Version header as `protocol`, the
// revision its message names as `message_protocol`, the WWW-Authenticate
// header of a 401 or 403).
// stdout gets one JSON line: {"ok":true,"tools":[names],"result":{...},
// "token_scope":"..."}, or {"ok":false,"stage":"connect|list|call|auth",
// "error":"...","name":"..."} with exit status 1. A server that serves
// without ever asking for a token fails at stage "auth": the script checks
// the authorization, not only the calls.
//
// What the SDK (2.4.0: dist/index.mjs StreamableHTTPClientTransport._send,
// dist/public-*.mjs auth/authInternal/discover*/fetchToken) requests, in
// order, for a server URL S (say http://H/mcp):
//  1. POST S, the first message (`initialize` in legacy mode, the
//     `server/discover` probe in auto mode or pinned to 2026-07-28),
//     without Authorization.
//  2. On 401: reads WWW-Authenticate (scheme Bearer or DPoP; parameters
//     resource_metadata and scope, quoted or not). The transport keeps the
//     scope (a union over challenges) and runs auth().
//  3. Protected resource metadata: GET resource_metadata when the challenge
//     had one (no fallback); otherwise GET
//     http://H/.well-known/oauth-protected-resource/mcp (path inserted,
//     trailing slash of the path dropped, the query kept), then, if that
//     answered 4xx (or 502) and the path is not "/", GET
//     http://H/.well-known/oauth-protected-resource. Sent with
//     MCP-Protocol-Version. No usable document: the authorization server
//     is taken to be http://H/ itself.
//  4. PRM `resource` must have S's origin and a path that S's path starts
//     with; it is then sent verbatim as `resource` (not S). The
//     authorization server is authorization_servers[0].
//  5. Authorization server metadata, for an issuer I without a path: GET
//     I/.well-known/oauth-authorization-server, then
//     I/.well-known/openid-configuration; for I = https://A/p: GET
//     https://A/.well-known/oauth-authorization-server/p, then
//     https://A/.well-known/openid-configuration/p, then
//     https://A/p/.well-known/openid-configuration. 4xx or 502: the next
//     one; another 5xx: an error. The document's `issuer` must equal I (one
//     trailing slash of I aside); with --issuer the credentials go to that
//     issuer only (AuthorizationServerMismatchError otherwise).
//  6. POST token_endpoint (plain http only on loopback hosts), form body
//     grant_type=client_credentials, scope=SCOPE (the challenge's scope,
//     else PRM scopes_supported joined by spaces, else --scope; left out if
//     none), resource=PRM resource; client authentication
//     client_secret_basic (Authorization: Basic) when the AS lists it or
//     lists nothing, else client_secret_post. An invalid_client answer is
//     tried once more.
//  7. POST S again, the same message, with Authorization: Bearer TOKEN (and
//     on every later request). A second 401 is an error ("Server returned
//     401 after re-authentication").
//  8. On 403 with error="insufficient_scope" (any later request): scope =
//     the union of the scope asked before, the token's scope and the
//     challenge's; steps 3, 5 and 6 again (with the 403's resource_metadata
//     if it has one), then the request once more; a second 403 for the same
//     request is an error (one step-up per request by default).

import { join } from 'node:path';
import { dirname } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

const here = dirname(fileURLToPath(import.meta.url));
const nodeModules = process.env.MCP_NODE_MODULES
  || join(here, '..', '..', '..', 'target', 'mcp-node', 'node_modules');
const sdk = await import(pathToFileURL(
  join(nodeModules, '@modelcontextprotocol', 'client', 'dist', 'index.mjs'),
).href);

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    'client-id': { type: 'string' },
    'client-secret': { type: 'string' },
    issuer: { type: 'string' },
    scope: { type: 'string' },
    mode: { type: 'string' },
    'step-up': { type: 'string' },
  },
});
const [url, tool, rawArgs] = positionals;
if (!url || !tool) {
  process.stderr.write('usage: client-credentials.mjs URL TOOL [ARGS_JSON] [--client-id ID] [--client-secret S] [--issuer ISSUER] [--scope S] [--mode M]\n');
  process.exit(2);
}
const toolArgs = rawArgs ? JSON.parse(rawArgs) : {};
const mode = values.mode ?? 'legacy';
const versionNegotiation = { mode: mode === 'auto' || mode === 'legacy' ? mode : { pin: mode } };

// Every request logged, in order, for the step-up check.
const requests = [];
const log = (entry) => {
  requests.push(entry);
  process.stderr.write(`${JSON.stringify(entry)}\n`);
};

/** fetch that logs each request and its answer. */
async function loggingFetch(input, init = {}) {
  const method = init.method ?? 'GET';
  const target = String(input instanceof Request ? input.url : input);
  const headers = new Headers(init.headers);
  const entry = { http: `${method} ${target}` };
  const auth = headers.get('authorization');
  if (auth) entry.authorization = auth.split(' ')[0];
  const protocol = headers.get('mcp-protocol-version');
  if (protocol) entry.protocol = protocol;
  if (init.body instanceof URLSearchParams) {
    entry.form = Object.fromEntries([...init.body].filter(([k]) => k !== 'client_secret'));
  } else if (typeof init.body === 'string') {
    try {
      const body = JSON.parse(init.body);
      entry.jsonrpc = Array.isArray(body) ? body.map((m) => m.method ?? 'response') : body.method ?? 'response';
      // The revision a message names: initialize's, or the 2026-07-28 _meta's.
      const named = body?.params?.protocolVersion
        ?? body?.params?._meta?.['io.modelcontextprotocol/protocolVersion'];
      if (named) entry.message_protocol = named;
    } catch {
      // not JSON
    }
  }
  const response = await fetch(input, init);
  entry.status = response.status;
  const challenge = response.headers.get('www-authenticate');
  if (challenge) entry.www_authenticate = challenge;
  log(entry);
  return response;
}

const provider = new sdk.ClientCredentialsProvider({
  clientId: values['client-id'] ?? process.env.AS_CLIENT_ID ?? 'mcp-m2m',
  clientSecret: values['client-secret'] ?? process.env.AS_CLIENT_SECRET ?? 'mcp-m2m-secret',
  ...(values.issuer ?? process.env.AS_ISSUER ? { expectedIssuer: values.issuer ?? process.env.AS_ISSUER } : {}),
  ...(values.scope ? { scope: values.scope } : {}),
});
const transport = new sdk.StreamableHTTPClientTransport(new URL(url), {
  authProvider: provider,
  fetch: loggingFetch,
});
const client = new sdk.Client({ name: 'toolbox-auth-tests', version: '1.0.0' }, { versionNegotiation });

const fail = async (stage, error) => {
  process.stdout.write(`${JSON.stringify({
    ok: false,
    stage,
    name: error?.constructor?.name ?? typeof error,
    code: error?.code,
    error: String(error?.message ?? error),
  })}\n`);
  await client.close().catch(() => {});
  process.exit(1);
};

try {
  await client.connect(transport);
} catch (error) {
  await fail('connect', error);
}
let tools;
try {
  ({ tools } = await client.listTools());
} catch (error) {
  await fail('list', error);
}
let result;
try {
  result = await client.callTool({ name: tool, arguments: toolArgs });
} catch (error) {
  await fail('call', error);
}
const granted = provider.tokens();
if (!granted) {
  await fail('auth', new Error('the server answered without asking for a token (no 401 challenge)'));
}
const stepUp = values['step-up'];
if (stepUp) {
  const problem = stepUpProblem(stepUp);
  if (problem) await fail('step-up', new Error(problem));
}
process.stdout.write(`${JSON.stringify({
  ok: true,
  tools: tools.map((t) => t.name),
  result,
  token_scope: granted?.scope,
  ...(stepUp ? { stepped_up: true } : {}),
})}\n`);
await client.close();

/** What is wrong with the step-up to `scope` the call of TOOL needed, if anything. */
function stepUpProblem(scope) {
  const has = (text) => String(text ?? '').split(/\s+/).includes(scope);
  if (tools.some((t) => t.name === tool)) return `${tool} was listed to a token without ${scope}`;
  if (result?.isError) return `the call of ${tool} failed after the step-up: ${JSON.stringify(result)}`;
  const refused = requests.findIndex((r) => r.jsonrpc === 'tools/call' && r.status === 403);
  if (refused < 0) return `the call of ${tool} was never refused 403`;
  const challenge = requests[refused].www_authenticate ?? '';
  const named = /scope="([^"]*)"/.exec(challenge)?.[1];
  if (!challenge.includes('error="insufficient_scope"') || !has(named)) {
    return `the 403 does not ask for ${scope}: ${challenge}`;
  }
  const later = requests.slice(refused + 1);
  const token = later.find((r) => r.form?.grant_type === 'client_credentials');
  if (!has(token?.form?.scope)) return `no token was asked for with ${scope} after the 403`;
  if (!has(provider.tokens()?.scope)) return `the token in use lacks ${scope}`;
  if (!later.some((r) => r.jsonrpc === 'tools/call' && r.status === 200)) {
    return `the call of ${tool} was not made again with the new token`;
  }
  return null;
}
