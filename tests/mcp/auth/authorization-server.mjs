// An OAuth 2.1 authorization server for the MCP authorization tests:
// `oidc-provider` (pinned in tests/mcp/auth/package.json, installed by
// tests/mcp/auth/node.sh) on 127.0.0.1, on a port the kernel picks.
//
//   . tests/mcp/auth/node.sh
//   NODE_PATH="$AUTH_NODE_MODULES" "$MCP_NODE" tests/mcp/auth/authorization-server.mjs [options]
//
// (NODE_PATH is not needed: the script finds oidc-provider through
// AUTH_NODE_MODULES, or target/auth-node/node_modules of this checkout.)
//
// When it listens, it prints one line of JSON on stdout and nothing else:
//   {"issuer":"http://127.0.0.1:PORT","token_endpoint":".../token",
//    "jwks_uri":".../jwks","authorization_endpoint":".../auth",
//    "introspection_endpoint":".../token/introspection",
//    "registration_endpoint":".../reg" (only with --registration),
//    "discovery":[".../.well-known/oauth-authorization-server",
//                 ".../.well-known/openid-configuration"],
//    "alg":"RS256","scopes":[...],"clients":{...}}
// and logs every request (`METHOD /path -> STATUS`) as JSON lines on stderr.
// It runs until SIGTERM or SIGINT, or until its standard input closes when
// started with --exit-on-stdin-close.
//
// Three static clients:
//   client credentials  --client-id / AS_CLIENT_ID (default mcp-m2m),
//                       --client-secret / AS_CLIENT_SECRET (default
//                       mcp-m2m-secret); client_secret_basic or
//                       client_secret_post; grant client_credentials.
//   authorization code  --code-client-id / AS_CODE_CLIENT_ID (default
//                       mcp-interactive): a public native client
//                       (token_endpoint_auth_method none, PKCE S256
//                       required), grants authorization_code and
//                       refresh_token, redirect URIs --redirect-uri
//                       (repeatable) / AS_REDIRECT_URIS (space separated),
//                       default http://127.0.0.1/callback; a loopback
//                       redirect URI matches on any port (RFC 8252 7.3).
//   resource server     --rs-client-id / AS_RS_CLIENT_ID (default
//                       mcp-resource-server), --rs-client-secret /
//                       AS_RS_CLIENT_SECRET (default
//                       mcp-resource-server-secret): may only call the
//                       introspection endpoint (RFC 7662).
//
// Access tokens: with a `resource` parameter (RFC 8707) naming an allowed
// resource, the token is a JWT (RFC 9068, header typ "at+jwt", signed with
// --alg / AS_ALG: RS256 (default), PS256, ES256 or EdDSA, a fresh key each
// run, its kid in the JWKS) with aud = that resource, iss = the issuer,
// client_id, sub (the client id for client credentials, the account for
// authorization code), iat, exp (--ttl / AS_TTL seconds, default 600), jti
// and scope = the requested scopes that are in the allowed set (--scopes /
// AS_SCOPES, space separated, default "tools:read tools:call tools:admin");
// requesting none gives a token without scope. --token-format opaque (or
// AS_TOKEN_FORMAT=opaque) issues opaque tokens instead, for introspection.
// Allowed resources: --resource (repeatable) / AS_RESOURCES (space
// separated); by default any http(s) URI on a loopback host (127.0.0.1,
// localhost, [::1]). Without `resource` the token is opaque and has no
// audience (oidc-provider's behaviour), which an MCP server must refuse.
//
// Authorization code + PKCE, headless: the interaction pages answer JSON to
// `Accept: application/json` (HTML otherwise) and take form or JSON posts.
// With a cookie jar (oidc-provider binds each step to the cookies
// _interaction and _interaction_resume, set in its redirects):
//   1. GET  authorization_endpoint?response_type=code&client_id=...&
//           redirect_uri=...&code_challenge=...&code_challenge_method=S256&
//           scope=...&resource=...&state=...
//        -> 303 Location: /interaction/UID
//   2. GET  /interaction/UID (Accept: application/json)
//        -> {"uid":"UID","prompt":"login",...}
//   3. POST /interaction/UID/login   login=ACCOUNT   -> 303 /auth/UID
//   4. GET  /auth/UID                                -> 303 /interaction/UID2
//   5. GET  /interaction/UID2 -> {"prompt":"consent","details":{
//           "missingResourceScopes":{"RESOURCE":["tools:read",...]}},...}
//   6. POST /interaction/UID2/confirm                -> 303 /auth/UID2
//      (or POST /interaction/UID2/abort: the client gets error=access_denied)
//   7. GET  /auth/UID2 -> 303 Location: REDIRECT_URI?code=...&state=...&iss=...
//   8. POST token_endpoint grant_type=authorization_code&code=...&
//           code_verifier=...&redirect_uri=...&client_id=...&resource=...
// tests/mcp/auth/authorize-headless.mjs does steps 1-7 for a test.
//
// Key rotation, with --key-rotation: two more endpoints, for tests of a
// resource server's key cache (JSON answers {"signing":KID,"kids":[...]}):
//   POST /test/keys/rotate    a fresh key signs from now on; the keys that
//                             signed before stay in the JWKS (retired)
//   POST /test/keys/withdraw  the retired keys leave the JWKS
// The issuer, its clients and its port stay; the provider is made anew with
// the new key set, as a real one is reconfigured.
//
// Other options: --port N (default 0: a free port), --registration (also
// enable dynamic client registration, RFC 7591, at /reg),
// --exit-on-stdin-close.

import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

const here = path.dirname(fileURLToPath(import.meta.url));

/** Loads oidc-provider from AUTH_NODE_MODULES or target/auth-node. */
async function loadProvider() {
  const candidates = [
    process.env.AUTH_NODE_MODULES,
    path.join(here, '..', '..', '..', 'target', 'auth-node', 'node_modules'),
  ].filter(Boolean);
  for (const dir of candidates) {
    const pkg = path.join(dir, 'oidc-provider', 'package.json');
    if (fs.existsSync(pkg)) {
      const require = createRequire(pkg);
      const entry = require.resolve('oidc-provider');
      return import(pathToFileURL(entry).href);
    }
  }
  // Last resort: the ordinary resolution (NODE_PATH does not apply to ESM).
  return import('oidc-provider');
}

function options() {
  const { values } = parseArgs({
    options: {
      port: { type: 'string' },
      'client-id': { type: 'string' },
      'client-secret': { type: 'string' },
      'code-client-id': { type: 'string' },
      'redirect-uri': { type: 'string', multiple: true },
      'rs-client-id': { type: 'string' },
      'rs-client-secret': { type: 'string' },
      scopes: { type: 'string' },
      resource: { type: 'string', multiple: true },
      alg: { type: 'string' },
      'token-format': { type: 'string' },
      ttl: { type: 'string' },
      registration: { type: 'boolean' },
      'key-rotation': { type: 'boolean' },
      'exit-on-stdin-close': { type: 'boolean' },
    },
    strict: true,
  });
  const env = process.env;
  const words = (s) => (s ?? '').split(/\s+/).filter(Boolean);
  const o = {
    port: Number(values.port ?? env.AS_PORT ?? 0),
    clientId: values['client-id'] ?? env.AS_CLIENT_ID ?? 'mcp-m2m',
    clientSecret: values['client-secret'] ?? env.AS_CLIENT_SECRET ?? 'mcp-m2m-secret',
    codeClientId: values['code-client-id'] ?? env.AS_CODE_CLIENT_ID ?? 'mcp-interactive',
    redirectUris: values['redirect-uri'] ?? (words(env.AS_REDIRECT_URIS).length
      ? words(env.AS_REDIRECT_URIS) : ['http://127.0.0.1/callback']),
    rsClientId: values['rs-client-id'] ?? env.AS_RS_CLIENT_ID ?? 'mcp-resource-server',
    rsClientSecret: values['rs-client-secret'] ?? env.AS_RS_CLIENT_SECRET
      ?? 'mcp-resource-server-secret',
    scopes: words(values.scopes ?? env.AS_SCOPES ?? 'tools:read tools:call tools:admin'),
    resources: values.resource ?? words(env.AS_RESOURCES),
    alg: values.alg ?? env.AS_ALG ?? 'RS256',
    tokenFormat: values['token-format'] ?? env.AS_TOKEN_FORMAT ?? 'jwt',
    ttl: Number(values.ttl ?? env.AS_TTL ?? 600),
    registration: values.registration ?? false,
    keyRotation: values['key-rotation'] ?? false,
    exitOnStdinClose: values['exit-on-stdin-close'] ?? false,
  };
  if (!Number.isInteger(o.port) || o.port < 0 || o.port > 65535) throw new Error(`bad --port ${o.port}`);
  if (!Number.isInteger(o.ttl) || o.ttl <= 0) throw new Error(`bad --ttl ${o.ttl}`);
  if (!['RS256', 'PS256', 'ES256', 'EdDSA'].includes(o.alg)) throw new Error(`bad --alg ${o.alg}`);
  if (!['jwt', 'opaque'].includes(o.tokenFormat)) throw new Error(`bad --token-format ${o.tokenFormat}`);
  return o;
}

/** A fresh private signing key for `alg`, as a JWK with kid and alg. */
function signingKey(alg) {
  const { privateKey } = alg === 'ES256'
    ? crypto.generateKeyPairSync('ec', { namedCurve: 'P-256' })
    : alg === 'EdDSA'
      ? crypto.generateKeyPairSync('ed25519')
      : crypto.generateKeyPairSync('rsa', { modulusLength: 2048 });
  const jwk = privateKey.export({ format: 'jwk' });
  return { ...jwk, alg, use: 'sig', kid: `${alg.toLowerCase()}-${crypto.randomBytes(6).toString('hex')}` };
}

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]']);

/** Whether `uri` may be named in a `resource` parameter. */
function resourceAllowed(o, uri) {
  if (o.resources.length) return o.resources.includes(uri);
  const url = URL.parse(uri);
  return !!url && (url.protocol === 'http:' || url.protocol === 'https:') && LOOPBACK.has(url.hostname);
}

/** Reads a form or JSON request body (at most 64 KiB). */
async function readBody(req) {
  const chunks = [];
  let size = 0;
  for await (const chunk of req) {
    size += chunk.length;
    if (size > 65536) throw new Error('request body over 64 KiB');
    chunks.push(chunk);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  if ((req.headers['content-type'] ?? '').startsWith('application/json')) {
    return text ? JSON.parse(text) : {};
  }
  return Object.fromEntries(new URLSearchParams(text));
}

const escape = (s) => String(s).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** The interaction pages: GET /interaction/UID, POST .../login, .../confirm, .../abort. */
function interactions(provider) {
  return async (ctx, next) => {
    const m = /^\/interaction\/([\w-]+)(?:\/(login|confirm|abort))?$/.exec(ctx.path);
    if (!m) return next();
    const [, uid, action] = m;
    const details = await provider.interactionDetails(ctx.req, ctx.res);
    if (details.uid !== uid) ctx.throw(400, 'interaction does not match its cookie');
    const { prompt, params, session, grantId } = details;
    ctx.set('Cache-Control', 'no-store');
    if (ctx.method === 'GET' && !action) {
      const body = {
        uid,
        prompt: prompt.name,
        reasons: prompt.reasons,
        details: prompt.details,
        client_id: params.client_id,
        scope: params.scope,
        resource: params.resource,
        account: session?.accountId,
        actions: prompt.name === 'login'
          ? { login: `/interaction/${uid}/login`, abort: `/interaction/${uid}/abort` }
          : { confirm: `/interaction/${uid}/confirm`, abort: `/interaction/${uid}/abort` },
      };
      if (ctx.accepts('html', 'json') === 'json') {
        ctx.body = body;
      } else {
        const form = prompt.name === 'login'
          ? `<form method="post" action="${body.actions.login}"><input name="login" placeholder="account"><button>Sign in</button></form>`
          : `<p>${escape(params.client_id)} asks for ${escape(JSON.stringify(prompt.details))}</p><form method="post" action="${body.actions.confirm}"><button>Allow</button></form>`;
        ctx.type = 'html';
        ctx.body = `<!doctype html><title>${escape(prompt.name)}</title>${form}<form method="post" action="${body.actions.abort}"><button>Deny</button></form>`;
      }
      return undefined;
    }
    if (ctx.method !== 'POST' || !action) ctx.throw(405);
    const input = await readBody(ctx.req);
    let result;
    if (action === 'abort') {
      result = { error: 'access_denied', error_description: 'End-User aborted interaction' };
    } else if (action === 'login') {
      if (prompt.name !== 'login') ctx.throw(400, `the prompt is ${prompt.name}, not login`);
      const account = String(input.login ?? '').trim();
      if (!account) ctx.throw(400, 'login is required');
      result = { login: { accountId: account } };
    } else {
      if (prompt.name !== 'consent') ctx.throw(400, `the prompt is ${prompt.name}, not consent`);
      const grant = grantId
        ? await provider.Grant.find(grantId)
        : new provider.Grant({ accountId: session.accountId, clientId: params.client_id });
      const d = prompt.details;
      if (d.missingOIDCScope) grant.addOIDCScope(d.missingOIDCScope.join(' '));
      if (d.missingOIDCClaims) grant.addOIDCClaims(d.missingOIDCClaims);
      for (const [indicator, scopes] of Object.entries(d.missingResourceScopes ?? {})) {
        grant.addResourceScope(indicator, scopes.join(' '));
      }
      result = { consent: { grantId: await grant.save() } };
    }
    const returnTo = await provider.interactionResult(ctx.req, ctx.res, result, {
      mergeWithLastSubmission: action === 'confirm',
    });
    ctx.status = 303;
    ctx.redirect(returnTo);
    return undefined;
  };
}

/**
 * The signing keys: the one that signs access tokens, those retired by a
 * rotation (still published until withdrawn), and an RS256 key when the
 * algorithm is another (oidc-provider signs ID tokens with it by default).
 */
function keySet(o) {
  return {
    signing: signingKey(o.alg),
    retired: [],
    idTokens: o.alg === 'RS256' ? null : signingKey('RS256'),
    published() {
      return [this.signing, ...this.retired, ...(this.idTokens ? [this.idTokens] : [])];
    },
  };
}

function configuration(o, errors, keys) {
  const { signing } = keys;
  return {
    jwks: { keys: keys.published() },
    cookies: { keys: [crypto.randomBytes(32).toString('hex')] },
    scopes: ['openid', 'offline_access', ...o.scopes],
    clients: [
      {
        client_id: o.clientId,
        client_secret: o.clientSecret,
        grant_types: ['client_credentials'],
        response_types: [],
        redirect_uris: [],
        token_endpoint_auth_method: 'client_secret_basic',
        scope: o.scopes.join(' '),
      },
      {
        client_id: o.codeClientId,
        application_type: 'native',
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        redirect_uris: o.redirectUris,
        token_endpoint_auth_method: 'none',
        scope: ['openid', 'offline_access', ...o.scopes].join(' '),
      },
      {
        client_id: o.rsClientId,
        client_secret: o.rsClientSecret,
        grant_types: [],
        response_types: [],
        redirect_uris: [],
        token_endpoint_auth_method: 'client_secret_basic',
      },
    ],
    // client_secret_post for the client-credentials client as well: the
    // auth method a client uses is checked against this list, and a static
    // client registered for client_secret_basic may still use _post.
    clientAuthMethods: ['client_secret_basic', 'client_secret_post', 'none'],
    // OAuth 2.1: the code flow only (no implicit), PKCE always.
    responseTypes: ['code'],
    pkce: { required: () => true },
    findAccount: async (_ctx, sub) => ({ accountId: sub, claims: async () => ({ sub }) }),
    issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed('refresh_token'),
    ttl: {
      AccessToken: o.ttl,
      ClientCredentials: o.ttl,
      AuthorizationCode: 60,
      Interaction: 600,
      Session: 3600,
      Grant: 3600,
      IdToken: 600,
      RefreshToken: 86400,
    },
    features: {
      devInteractions: { enabled: false },
      clientCredentials: { enabled: true },
      introspection: {
        enabled: true,
        // The resource server may introspect any token; a client only its own.
        allowedPolicy: async (_ctx, client, token) => client.clientId === o.rsClientId
          || token.clientId === client.clientId,
      },
      revocation: { enabled: true },
      registration: { enabled: o.registration },
      resourceIndicators: {
        enabled: true,
        defaultResource: async (_ctx, _client, oneOf) => oneOf,
        useGrantedResource: async () => true,
        getResourceServerInfo: async (_ctx, resource) => {
          if (!resourceAllowed(o, resource)) {
            throw new errors.InvalidTarget(`resource ${resource} is not allowed`);
          }
          return {
            scope: o.scopes.join(' '),
            audience: resource,
            accessTokenTTL: o.ttl,
            accessTokenFormat: o.tokenFormat,
            ...(o.tokenFormat === 'jwt' ? { jwt: { sign: { alg: o.alg, kid: signing.kid } } } : {}),
          };
        },
      },
    },
    interactions: { url: async (_ctx, interaction) => `/interaction/${interaction.uid}` },
    renderError: async (ctx, out) => {
      ctx.type = 'json';
      ctx.body = out;
    },
  };
}

async function main() {
  const o = options();
  const { Provider, errors } = await loadProvider();
  const server = http.createServer();
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(o.port, '127.0.0.1', resolve);
  });
  const issuer = `http://127.0.0.1:${server.address().port}`;
  const keys = keySet(o);
  const serve = () => {
    const provider = new Provider(issuer, configuration(o, errors, keys));
    provider.use(interactions(provider));
    provider.on('server_error', (_ctx, err) => {
      process.stderr.write(`${JSON.stringify({ server_error: String(err?.stack ?? err) })}\n`);
    });
    return provider.callback();
  };
  let callback = serve();
  const rotation = {
    '/test/keys/rotate': () => {
      keys.retired.unshift(keys.signing);
      keys.signing = signingKey(o.alg);
    },
    '/test/keys/withdraw': () => {
      keys.retired = [];
    },
  };
  server.on('request', (req, res) => {
    res.on('finish', () => {
      process.stderr.write(`${JSON.stringify({ request: `${req.method} ${req.url}`, status: res.statusCode })}\n`);
    });
    const change = o.keyRotation && req.method === 'POST' ? rotation[req.url] : undefined;
    if (change) {
      change();
      callback = serve();
      res.setHeader('Content-Type', 'application/json');
      res.end(JSON.stringify({ signing: keys.signing.kid, kids: keys.published().map((k) => k.kid) }));
      return;
    }
    callback(req, res);
  });

  const info = {
    issuer,
    token_endpoint: `${issuer}/token`,
    jwks_uri: `${issuer}/jwks`,
    authorization_endpoint: `${issuer}/auth`,
    introspection_endpoint: `${issuer}/token/introspection`,
    ...(o.registration ? { registration_endpoint: `${issuer}/reg` } : {}),
    discovery: [
      `${issuer}/.well-known/oauth-authorization-server`,
      `${issuer}/.well-known/openid-configuration`,
    ],
    alg: o.alg,
    signing_kid: keys.signing.kid,
    token_format: o.tokenFormat,
    scopes: o.scopes,
    resources: o.resources.length ? o.resources : 'any http(s) URI on a loopback host',
    clients: {
      client_credentials: { client_id: o.clientId, client_secret: o.clientSecret },
      authorization_code: { client_id: o.codeClientId, redirect_uris: o.redirectUris },
      resource_server: { client_id: o.rsClientId, client_secret: o.rsClientSecret },
    },
  };
  process.stdout.write(`${JSON.stringify(info)}\n`);

  const stop = () => {
    server.close();
    server.closeAllConnections();
    process.exit(0);
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  if (o.exitOnStdinClose) {
    process.stdin.on('end', stop).on('close', stop).resume();
  }
}

main().catch((err) => {
  process.stderr.write(`authorization-server: ${err?.stack ?? err}\n`);
  process.exit(1);
});
