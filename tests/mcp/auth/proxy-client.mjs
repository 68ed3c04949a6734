// An MCP client over stdio, through the official TypeScript SDK v2 client
// (`@modelcontextprotocol/client`, pinned in tests/mcp/package.json), for
// `toolbox serve` as a proxy of a protected server: it starts
// `TOOLBOX --registry REGISTRY serve`, waits until TOOL is listed (the
// proxy reaches its servers in the background), calls it with ARGS, waits
// --wait-ms (past the access token's lifetime), and calls it again.
//
//   . tests/mcp/auth/node.sh
//   "$MCP_NODE" tests/mcp/auth/proxy-client.mjs TOOLBOX REGISTRY TOOL ARGS \
//     [--wait-ms MS] [--token-log FILE] [--timeout-ms MS]
//
// The proxy gets this process's environment (the SDK would pass only a few
// variables), so that a `${VAR}` of the registry file is set for it; its
// stderr is this script's. --token-log is the authorization server's
// request log (tests/mcp/auth/authorization-server.mjs's stderr): the
// token requests it answered 200 are counted before the wait and after
// the second call. --timeout-ms (default 20000) bounds the wait for TOOL.
//
// stdout gets one JSON line: {"ok":true,"tools":[names],"first":TEXT,
// "second":TEXT,"tokens_before":N,"tokens_after":M}, or {"ok":false,
// "stage":"connect|list|first|second","error":"..."} with exit status 1. A
// call answered with an error result fails its stage.

import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

const here = dirname(fileURLToPath(import.meta.url));
const nodeModules = process.env.MCP_NODE_MODULES
  || join(here, '..', '..', '..', 'target', 'mcp-node', 'node_modules');
const client = (path) =>
  import(pathToFileURL(join(nodeModules, '@modelcontextprotocol', 'client', 'dist', path)).href);
const { Client } = await client('index.mjs');
const { StdioClientTransport } = await client('stdio.mjs');

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    'wait-ms': { type: 'string', default: '0' },
    'token-log': { type: 'string' },
    'timeout-ms': { type: 'string', default: '20000' },
  },
});
const [toolbox, registry, tool, args = '{}'] = positionals;
if (!toolbox || !registry || !tool) {
  console.error('usage: proxy-client.mjs TOOLBOX REGISTRY TOOL [ARGS] [--wait-ms MS] [--token-log FILE]');
  process.exit(2);
}

let stage = 'connect';
const done = (line, code) => {
  process.stdout.write(`${JSON.stringify(line)}\n`);
  process.exit(code);
};

// Token requests the authorization server answered with a token.
const tokens = () => {
  if (!values['token-log']) return null;
  return readFileSync(values['token-log'], 'utf8')
    .split('\n')
    .filter((line) => line.includes('"request":"POST /token"') && line.includes('"status":200'))
    .length;
};

// The text of a call's result; an error result fails the stage.
const call = async (c) => {
  const result = await c.callTool({ name: tool, arguments: JSON.parse(args) });
  const text = (result.content ?? []).map((part) => part.text ?? '').join('');
  if (result.isError) throw new Error(`an error result: ${text}`);
  return text;
};

const transport = new StdioClientTransport({
  command: toolbox,
  args: ['--registry', registry, 'serve'],
  env: process.env,
  stderr: 'inherit',
});
const c = new Client({ name: 'toolbox-proxy-auth-test', version: '1.0.0' });
try {
  await c.connect(transport);
  stage = 'list';
  const deadline = Date.now() + Number(values['timeout-ms']);
  let names = [];
  for (;;) {
    names = (await c.listTools()).tools.map((listed) => listed.name);
    if (names.includes(tool)) break;
    if (Date.now() > deadline) throw new Error(`${tool} was never listed; the tools: ${names.join(', ')}`);
    await sleep(100);
  }
  stage = 'first';
  const first = await call(c);
  const before = tokens();
  await sleep(Number(values['wait-ms']));
  stage = 'second';
  const second = await call(c);
  const after = tokens();
  await c.close();
  done({ ok: true, tools: names, first, second, tokens_before: before, tokens_after: after }, 0);
} catch (error) {
  await c.close().catch(() => {});
  done({ ok: false, stage, error: String(error?.message ?? error) }, 1);
}
