// An MCP client that authorizes with the OAuth client-credentials grant,
// through the official TypeScript SDK v2 client (`@modelcontextprotocol/client`
// 2.4.0, pinned in tests/mcp/package.json): its `ClientCredentialsProvider`
// on a `StreamableHTTPClientTransport`. It connects to the MCP server at URL,
// lists the tools and calls TOOL with the JSON arguments ARGS (default {}).
//
//   . tests/mcp/auth/node.sh
//   "$MCP_NODE" tests/mcp/auth/client-credentials.mjs URL TOOL [ARGS] \
//     [--client-id ID] [--client-secret SECRET] [--issuer ISSUER] \
//     [--scope "a b"] [--mode auto|legacy|2026-07-28]
//
// --client-id / --client-secret default to AS_CLIENT_ID / AS_CLIENT_SECRET,
// then mcp-m2m / mcp-m2m-secret (tests/mcp/auth/authorization-server.mjs's
// defaults). --issuer (or AS_ISSUER) is the authorization server the
// credentials belong to (the provider's `expectedIssuer`: the SDK refuses to
// send them to any other); without it the SDK warns and uses whichever the
// server names. --scope is the provider's `scope`, used only when neither
// the 401 challenge nor the resource metadata names one. --mode is the
// client's version negotiation (default legacy: `initialize`).
//
// Every HTTP request the SDK makes goes through a logging fetch: one JSON
// line on stderr each (`{"http":"POST URL","status":401,...}`, the token
// request's form parameters with the secret left out, the scheme of its
// Authorization header, the WWW-Authenticate header of a 401 or 403).
// stdout gets one JSON line: {"ok":true,"tools":[names],"result":{...},
// "token_scope":"..."}, or {"ok":false,"stage":"connect|list|call|auth",
// "error":"...","name":"..."} with exit status 1. A server that serves
// without ever asking for a token fails at stage "auth": the script checks
// the authorization, not only the calls.

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

const log = (entry) => process.stderr.write(`${JSON.stringify(entry)}\n`);

/** fetch that logs each request and its answer. */
async function loggingFetch(input, init = {}) {
  const method = init.method ?? 'GET';
  const target = String(input instanceof Request ? input.url : input);
  const headers = new Headers(init.headers);
  const entry = { http: `${method} ${target}` };
  const auth = headers.get('authorization');
  if (auth) entry.authorization = auth.split(' ')[0];
  if (init.body instanceof URLSearchParams) {
    entry.form = Object.fromEntries([...init.body].filter(([k]) => k !== 'client_secret'));
  } else if (typeof init.body === 'string') {
    try {
      const body = JSON.parse(init.body);
      entry.jsonrpc = Array.isArray(body) ? body.map((m) => m.method ?? 'response') : body.method ?? 'response';
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
process.stdout.write(`${JSON.stringify({
  ok: true,
  tools: tools.map((t) => t.name),
  result,
  token_scope: granted?.scope,
})}\n`);
await client.close();
