// MCP Apps in a real browser: headless Chromium (puppeteer-core) opens the
// test host (host.html and the host.js bundle that tests/mcp/apps/run.sh
// makes), which shows the counter view of examples/apps_server in a
// sandboxed iframe and bridges it to the server with ext-apps' AppBridge.
// A Node server of this test serves the host and passes /mcp to the
// example, so the page and the MCP endpoint share an origin.
//
// Checks: the view gets the model's tool result and shows the count; its
// button calls the app-only counter_add through the host, and the server's
// count changes; the host refuses the view's call of the model-only
// counter_reset, and the count stays; the view's document has the CSP the
// resource's _meta.ui gave; the model's tool list has no app-only tool.
// A screenshot goes to target/apps/counter.png.
//
//   APPS_SERVER=target/debug/examples/apps_server CHROMIUM=/usr/bin/chromium \
//   APPS_HOST_DIR=target/apps node --test tests/mcp/apps/browser.test.mjs
// (tests/mcp/apps/run.sh sets these.)

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import http from 'node:http';
import { createRequire } from 'node:module';
import path from 'node:path';
import readline from 'node:readline';

const modules = process.env.MCP_NODE_MODULES;
const require = createRequire(path.join(modules, 'noop.js'));
const puppeteer = (await import(require.resolve('puppeteer-core'))).default;
const { Client, StreamableHTTPClientTransport } = await import(
  require.resolve('@modelcontextprotocol/client')
);

const SERVER = process.env.APPS_SERVER;
const CHROMIUM = process.env.CHROMIUM;
const HOST_DIR = process.env.APPS_HOST_DIR;
const HERE = path.dirname(new URL(import.meta.url).pathname);
/** A liveness bound for each wait in the page, not a speed check. */
const WAIT = { timeout: 10_000 };

/** Starts the example; resolves with its MCP URL and a stop function. */
function startServer() {
  const child = spawn(SERVER, ['0'], { stdio: ['ignore', 'pipe', 'inherit'] });
  const stop = () => child.kill();
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`apps_server exited (${code}) before it listened`)));
    readline.createInterface({ input: child.stdout }).once('line', (line) => {
      resolve({ url: JSON.parse(line).url, stop });
    });
  });
}

/** The host's files, and /mcp passed on to `target` (streams kept). */
function startHost(target) {
  const upstream = new URL(target);
  const files = {
    '/host.html': [path.join(HERE, 'host.html'), 'text/html; charset=utf-8'],
    '/host.js': [path.join(HOST_DIR, 'host.js'), 'text/javascript; charset=utf-8'],
  };
  const server = http.createServer(async (request, response) => {
    const file = files[request.url];
    if (file) {
      response.writeHead(200, { 'content-type': file[1] });
      response.end(await readFile(file[0]));
      return;
    }
    if (!request.url.startsWith('/mcp')) {
      response.writeHead(404).end();
      return;
    }
    const headers = { ...request.headers, host: upstream.host };
    const forward = http.request(
      { host: upstream.hostname, port: upstream.port, path: request.url, method: request.method, headers },
      (answer) => {
        response.writeHead(answer.statusCode, answer.headers);
        answer.pipe(response);
      },
    );
    forward.on('error', () => response.destroy());
    request.pipe(forward);
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      resolve({ url: `http://127.0.0.1:${server.address().port}`, server });
    });
  });
}

/** The server's count, read by a client of the test's own. */
async function count(url) {
  const client = new Client({ name: 'apps-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  try {
    const result = await client.callTool({ name: 'counter_show', arguments: {} });
    return result.structuredContent.count;
  } finally {
    await client.close();
  }
}

test('the counter view runs in a sandboxed iframe and calls the server through the host', async (t) => {
  const server = await startServer();
  t.after(server.stop);
  const host = await startHost(server.url);
  t.after(() => host.server.close());
  const browser = await puppeteer.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
  });
  t.after(() => browser.close());

  const page = await browser.newPage();
  const logs = [];
  page.on('console', (message) => logs.push(`${message.type()}: ${message.text()}`));
  page.on('pageerror', (error) => logs.push(`pageerror: ${error.message}`));
  try {
    await drive(page, host.url, server.url, logs);
  } catch (error) {
    console.error(`the page's console:\n${logs.join('\n')}`);
    throw error;
  }
});

/** The test's steps in the page. */
async function drive(page, hostUrl, serverUrl, logs) {
  await page.goto(`${hostUrl}/host.html`);
  await page.waitForFunction(() => window.host && (window.host.resultSent || window.host.error), WAIT);
  const state = await page.evaluate(() => window.host);
  assert.equal(state.error, null, logs.join('\n'));
  assert.deepEqual(state.modelTools, ['counter_reset', 'counter_show']);
  assert.deepEqual(state.ui, { csp: {}, prefersBorder: true });

  const frameHandle = await page.waitForSelector('iframe#view', WAIT);
  assert.equal(await frameHandle.evaluate((iframe) => iframe.getAttribute('sandbox')), 'allow-scripts');
  const view = await frameHandle.contentFrame();
  const text = (selector) => view.$eval(selector, (element) => element.textContent);

  // The model's call of counter_show, shown by the view.
  await view.waitForFunction(() => document.getElementById('count').textContent === '0', WAIT);
  const policy = await view.$eval('meta[http-equiv="Content-Security-Policy"]', (meta) => meta.content);
  assert.match(policy, /default-src 'none'/);
  assert.match(policy, /connect-src 'none'/);
  assert.match(policy, /frame-src 'none'/);
  // And the browser enforces it: the view may reach no network.
  const violated = await view.evaluate(
    () =>
      new Promise((resolve) => {
        document.addEventListener('securitypolicyviolation', (event) => resolve(event.effectiveDirective));
        fetch('http://127.0.0.1:9/').catch(() => {});
        setTimeout(() => resolve('no violation'), 5000);
      }),
  );
  assert.equal(violated, 'connect-src');

  // The view's button calls the app-only tool through the host.
  await view.waitForSelector('#add:not([disabled])', WAIT);
  await view.click('#add');
  await view.waitForFunction(() => document.getElementById('count').textContent === '1', WAIT);
  assert.equal(await count(serverUrl), 1);
  await view.click('#add');
  await view.waitForFunction(() => document.getElementById('count').textContent === '2', WAIT);
  assert.equal(await count(serverUrl), 2);

  // The host refuses the view's call of the model-only tool.
  await view.click('#reset');
  await view.waitForFunction(() => document.getElementById('status').textContent !== '', WAIT);
  assert.match(await text('#status'), /^counter_reset refused: .*not visible to apps/);
  assert.equal(await text('#count'), '2');
  assert.equal(await count(serverUrl), 2);
  const after = await page.evaluate(() => window.host);
  assert.deepEqual(after.calls, ['counter_add', 'counter_add']);
  assert.deepEqual(after.refused, ['counter_reset']);

  await page.screenshot({ path: path.join(HOST_DIR, 'counter.png') });
}
