// Drives an authorization request of tests/mcp/auth/authorization-server.mjs
// to its redirect without a browser: follows the redirects with a cookie jar,
// signs in as an account at the login prompt, then allows (or denies) at the
// consent prompt. For an MCP client's `redirectToAuthorization(url)`.
//
//   import { authorizeHeadless } from './authorize-headless.mjs';
//   const redirect = await authorizeHeadless(authorizationUrl, { account: 'alice' });
//   // redirect: URL of REDIRECT_URI?code=...&state=...&iss=...
//   //           (or ?error=access_denied&... with { consent: false })
//
//   node tests/mcp/auth/authorize-headless.mjs 'AUTHORIZATION_URL' [ACCOUNT] [deny|--deny] [--follow]
//   # prints the redirect URL; with --follow it then requests it, as a
//   # browser would (a client's loopback listener gets the callback), and
//   # prints `callback: STATUS`
//
// Stops after 10 steps, and at the first URL outside the authorization
// server's origin (the client's redirect URI), which it does not fetch.

import { pathToFileURL } from 'node:url';

const MAX_STEPS = 10;

/** Remembers cookies by name (the server scopes them by path; its names are unique). */
class CookieJar {
  #cookies = new Map();

  store(response) {
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const eq = pair.indexOf('=');
      if (eq > 0) this.#cookies.set(pair.slice(0, eq).trim(), pair.slice(eq + 1).trim());
    }
  }

  header() {
    return [...this.#cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }
}

/**
 * Follows `authorizationUrl` through login and consent; resolves to the URL
 * the server redirects the user agent to outside its own origin.
 * @param {string | URL} authorizationUrl
 * @param {{ account?: string, consent?: boolean, fetch?: typeof fetch }} [options]
 */
export async function authorizeHeadless(authorizationUrl, options = {}) {
  const { account = 'alice', consent = true, fetch: fetchFn = fetch } = options;
  const jar = new CookieJar();
  const origin = new URL(authorizationUrl).origin;
  const request = async (url, init = {}) => {
    const response = await fetchFn(url, {
      ...init,
      redirect: 'manual',
      headers: { ...init.headers, cookie: jar.header(), accept: 'application/json' },
    });
    jar.store(response);
    return response;
  };
  let url = new URL(authorizationUrl);
  for (let step = 0; step < MAX_STEPS; step += 1) {
    if (url.origin !== origin) return url;
    const response = await request(url);
    const location = response.headers.get('location');
    if (response.status >= 300 && response.status < 400 && location) {
      await response.body?.cancel();
      url = new URL(location, url);
      continue;
    }
    if (response.status !== 200) {
      throw new Error(`GET ${url} answered ${response.status}: ${await response.text()}`);
    }
    const page = await response.json();
    const action = page.prompt === 'login'
      ? page.actions.login
      : consent ? page.actions.confirm : page.actions.abort;
    if (!action) throw new Error(`no action for prompt ${page.prompt} at ${url}`);
    const posted = await request(new URL(action, url), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(page.prompt === 'login' ? { login: account } : {}),
    });
    const next = posted.headers.get('location');
    if (posted.status !== 303 || !next) {
      throw new Error(`POST ${action} answered ${posted.status}: ${await posted.text()}`);
    }
    url = new URL(next, url);
  }
  throw new Error(`no redirect out of ${origin} after ${MAX_STEPS} steps`);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const flags = new Set(process.argv.slice(2).filter((arg) => arg.startsWith('--')));
  const [url, account, deny] = process.argv.slice(2).filter((arg) => !arg.startsWith('--'));
  const known = new Set(['--deny', '--follow']);
  if (!url || [...flags].some((flag) => !known.has(flag))) {
    process.stderr.write(
      'usage: authorize-headless.mjs AUTHORIZATION_URL [ACCOUNT] [deny] [--deny] [--follow]\n',
    );
    process.exit(2);
  }
  const consent = !(deny === 'deny' || flags.has('--deny'));
  authorizeHeadless(url, { account, consent })
    .then(async (redirect) => {
      process.stdout.write(`${redirect}\n`);
      if (flags.has('--follow')) {
        // As a browser would: the client's redirect URI receives it.
        const response = await fetch(redirect, { redirect: 'manual' });
        await response.body?.cancel();
        process.stdout.write(`callback: ${response.status}\n`);
      }
    })
    .catch((err) => {
      process.stderr.write(`authorize-headless: ${err.message}\n`);
      process.exit(1);
    });
}
