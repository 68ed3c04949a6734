// The client of tests/mcp/load-balancer.sh: the official TypeScript MCP
// SDK's `Client` over streamable HTTP, through a load balancer in front of
// several stateless `toolbox serve` instances.
//
//   MCP_NODE_MODULES=target/mcp-node/node_modules \
//     node tests/mcp/lb_client.mjs http://127.0.0.1:PORT/mcp [CALLS] [CONCURRENCY]
//
// It connects (initialize, notifications/initialized), lists the tools,
// then makes CALLS (1000 by default) `tools/call`s of `convert_length`,
// CONCURRENCY (8 by default) at a time, each with its own value, and checks
// every answer against the conversion it asked for. The first answer with
// a session id, the first wrong answer or a failed call ends it with exit
// code 1. On success it prints one line of JSON on stdout: the calls made,
// the session id (null) and the seconds they took.

import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const nodeModules = resolve(
  process.env.MCP_NODE_MODULES || join(here, '..', '..', 'target', 'mcp-node', 'node_modules'),
);
const sdk = (path) =>
  import(pathToFileURL(join(nodeModules, '@modelcontextprotocol', 'sdk', 'dist', 'esm', path)).href);
const { Client } = await sdk('client/index.js');
const { StreamableHTTPClientTransport } = await sdk('client/streamableHttp.js');

const [url, callsArg = '1000', concurrencyArg = '8'] = process.argv.slice(2);
if (!url) {
  console.error('usage: lb_client.mjs URL [CALLS] [CONCURRENCY]');
  process.exit(2);
}
const calls = Number(callsArg);
const concurrency = Number(concurrencyArg);

function fail(message) {
  console.error(`load balancer client: ${message}`);
  process.exit(1);
}

const transport = new StreamableHTTPClientTransport(new URL(url));
const client = new Client({ name: 'load-balancer-test', version: '1.0.0' });
// A hang guard, not a timing check.
const options = { timeout: 30_000 };
try {
  await client.connect(transport, options);
} catch (error) {
  fail(`initialize failed: ${error}`);
}
if (transport.sessionId !== undefined) {
  fail(`the server opened a session (${transport.sessionId}); a stateless one must not`);
}

const { tools } = await client.listTools(undefined, options);
if (!tools.some((tool) => tool.name === 'convert_length')) {
  fail(`tools/list has no convert_length: ${tools.map((tool) => tool.name).join(', ')}`);
}

// Call `n` converts n kilometres to metres: exact in binary floating
// point, so the answer's text is known to the digit.
async function call(n) {
  const result = await client.callTool(
    { name: 'convert_length', arguments: { value: n, from: 'kilometre', to: 'metre' } },
    undefined,
    options,
  );
  const expected = `${n} kilometre = ${n * 1000}.0000 metre`;
  const text = result.content?.[0]?.text;
  if (result.isError || text !== expected) {
    fail(`call ${n}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(result)}`);
  }
}

const started = performance.now();
let next = 1;
async function worker() {
  while (next <= calls) {
    const n = next++;
    try {
      await call(n);
    } catch (error) {
      fail(`call ${n} failed: ${error}`);
    }
  }
}
await Promise.all(Array.from({ length: concurrency }, worker));
const seconds = (performance.now() - started) / 1000;
if (transport.sessionId !== undefined) {
  fail(`a session id came back (${transport.sessionId}); a stateless server must not send one`);
}
await client.close();
console.log(JSON.stringify({ calls, sessionId: transport.sessionId ?? null, seconds }));
