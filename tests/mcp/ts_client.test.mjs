// The `toolbox` MCP server, driven by the official TypeScript MCP SDK's
// `Client` (the client inside most MCP hosts), over stdio and streamable
// HTTP.
//
// For each transport: `tools/list` must pass the SDK's own validation and
// give the tools of `toolbox schema --format mcp` (the registry's rendering);
// every tool is called once with valid arguments and once with a wrong-typed
// one; an unknown tool is refused; the list still works afterwards; and the
// SDK prints no warning about the schemas (its JSON Schema validator warns
// about formats it does not know, for one).
//
// The SDK's v2 client (`@modelcontextprotocol/client`) drives `toolbox
// serve` over stdio pinned to the 2026-07-28 revision, in `auto` mode and in
// `legacy` mode: list, call, a refused call, an unknown tool, list again.
//
// The v2 client also reads the `conformance-server` example's resources,
// prompts and completion over stdio and streamable HTTP, in both eras, and
// reads back the resource a tool's `resource_link` names.
//
// Then, for each transport, `toolbox --registry FILE serve` as an MCP proxy
// (its file names server-everything and tests/mcp/python_server.py): local
// and remote tools listed and called, and a remote server's new tool
// announced to the SDK's client with `notifications/tools/list_changed`.
//
//   TOOLBOX=target/debug/toolbox MCP_NODE_MODULES=target/mcp-node/node_modules \
//     MCP_PYTHON=target/mcp-venv/bin/python node --test tests/mcp/ts_client.test.mjs
//
// tests/mcp/run.sh installs Node and the SDK (tests/mcp/node.sh) and the
// Python SDK (tests/mcp/venv.sh), builds the binary and sets the variables.
// Needs python3 for `python_exec`.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync, accessSync, constants } from 'node:fs';
import { createServer } from 'node:http';
import { connect, createServer as createTcpServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

// Everything the SDK (or anything else) prints as a warning or an error
// during the run; checked at the end of each transport's tests.
const printed = [];
for (const level of ['warn', 'error']) {
  const original = console[level].bind(console);
  console[level] = (...args) => {
    printed.push(`console.${level}: ${args.map(String).join(' ')}`);
    original(...args);
  };
}

const here = dirname(fileURLToPath(import.meta.url));
const nodeModules = resolve(
  process.env.MCP_NODE_MODULES || join(here, '..', '..', 'target', 'mcp-node', 'node_modules'),
);
const sdk = (path) =>
  import(pathToFileURL(join(nodeModules, '@modelcontextprotocol', 'sdk', 'dist', 'esm', path)).href);
const { Client } = await sdk('client/index.js');
const { StdioClientTransport } = await sdk('client/stdio.js');
const { StreamableHTTPClientTransport } = await sdk('client/streamableHttp.js');
const { McpError, ErrorCode, LoggingMessageNotificationSchema, ToolListChangedNotificationSchema } =
  await sdk('types.js');
const { AjvJsonSchemaValidator } = await sdk('validation/ajv-provider.js');

// Long enough for a debug build on a loaded machine; only a hang reaches it.
const TIMEOUT = 60_000;

const TOOLBOX = process.env.TOOLBOX || '';
if (!TOOLBOX) {
  throw new Error('set TOOLBOX to the path of the built toolbox binary (tests/mcp/run.sh does)');
}
accessSync(TOOLBOX, constants.X_OK);

const DOCUMENT = [
  '# Field notes',
  '## Rivers\nRivers carry water to the sea. They also carry silt.',
  '## Hills\nHills rise slowly over time. Rivers cut through them.',
  '## Towns\nTowns grow where rivers meet. Trade follows the water.',
].join('\n\n');

// The file tools' root, with one file to read and list.
const files = mkdtempSync(join(tmpdir(), 'toolbox-ts-client-'));
mkdirSync(join(files, 'notes'));
writeFileSync(join(files, 'notes', 'todo.txt'), 'water the plants\n');

// A local HTTP server for `http_request`: it answers with what it received.
const echo = createServer((request, response) => {
  let body = '';
  request.setEncoding('utf8');
  request.on('data', (chunk) => (body += chunk));
  request.on('end', () => {
    response.setHeader('content-type', 'application/json');
    response.end(
      JSON.stringify({
        method: request.method,
        path: request.url,
        contentType: request.headers['content-type'] ?? null,
        body,
      }),
    );
  });
});
await new Promise((done) => echo.listen(0, '127.0.0.1', done));
const echoUrl = `http://127.0.0.1:${echo.address().port}`;

// The server's environment: the caller's without `TOOL_*` (so the configured
// `search` tool, which needs a key, stays out whatever the caller has set),
// plus the configuration the file and HTTP tools need here.
const serverEnv = Object.fromEntries(
  Object.entries(process.env).filter(([key]) => !key.startsWith('TOOL_')),
);
Object.assign(serverEnv, {
  TOOL_FILE_READ_ROOT: files,
  TOOL_FILE_WRITE_ROOT: files,
  TOOL_FILE_LIST_ROOT: files,
  TOOL_HTTP_REQUEST_ALLOWED_HOSTS: JSON.stringify([`127.0.0.1:${echo.address().port}`]),
});

// The registry's own MCP rendering: the tools the server must list.
const expected = JSON.parse(
  execFileSync(TOOLBOX, ['schema', '--format', 'mcp'], {
    env: serverEnv,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    timeout: TIMEOUT,
  }),
).tools;
const expectedNames = expected.map((tool) => tool.name).sort();

const textOf = (result) =>
  result.content
    .filter((block) => block.type === 'text')
    .map((block) => block.text)
    .join('\n');

// Every tool the server may list, with valid arguments (and what their
// result must show) and a wrong-typed argument (and the field the error must
// name). A tool missing here fails the run, so none is skipped unseen.
const TOOLS = {
  account_balance: {
    valid: { currency: 'USD' },
    // The customer comes from the invocation state, which an MCP client has
    // no way to send: with valid arguments the tool itself refuses (a tool
    // error, not an argument error).
    toolError: /no customer is signed in/,
    wrong: { currency: 978 },
    field: 'currency',
  },
  calculator: {
    valid: { expression: '2 * (3 + 4) ^ 2 / sqrt(16)' },
    check: (result) => assert.equal(result.structuredContent.result, 24.5),
    wrong: { expression: 42 },
    field: 'expression',
  },
  convert_length: {
    valid: { value: 1, from: 'mile', to: 'kilometre' },
    check: (result) => assert.equal(textOf(result), '1 mile = 1.6093 kilometre'),
    wrong: { value: 'far', from: 'mile', to: 'kilometre' },
    field: 'value',
  },
  // Deprecated: still callable, its description saying what to use.
  miles_to_km: {
    valid: { miles: 2 },
    check: (result) => assert.equal(textOf(result), '2 mile = 3.2187 kilometre'),
    wrong: { miles: 'two' },
    field: 'miles',
  },
  current_time: {
    valid: { zone: 'Europe/Paris', format: 'rfc3339' },
    check: (result) => {
      assert.equal(result.structuredContent.zone, 'Europe/Paris');
      assert.ok(Number.isInteger(result.structuredContent.unix));
    },
    wrong: { zone: 1 },
    field: 'zone',
  },
  file_list: {
    valid: { path: '.', recursive: true },
    check: (result) => {
      const paths = result.structuredContent.entries.map((entry) => entry.path);
      assert.ok(paths.includes('notes/todo.txt'), paths.join(', '));
    },
    wrong: { recursive: 'yes' },
    field: 'recursive',
  },
  file_read: {
    valid: { path: 'notes/todo.txt', offset: 0, length: 5 },
    check: (result) => {
      assert.equal(result.structuredContent.content, 'water');
      assert.equal(result.structuredContent.eof, false);
    },
    wrong: { path: 'notes/todo.txt', offset: 'start' },
    field: 'offset',
  },
  file_write: {
    valid: { path: 'written/hello.txt', content: 'hello\n', mode: 'overwrite' },
    check: (result) => assert.equal(result.structuredContent.size, 6),
    wrong: { path: 'written/hello.txt', content: ['hello'] },
    field: 'content',
  },
  http_request: {
    valid: () => ({
      url: `${echoUrl}/items?page=2`,
      method: 'POST',
      headers: { Accept: 'application/json' },
      body: { greeting: 'hello' },
    }),
    check: (result) => {
      const answer = result.structuredContent;
      assert.equal(answer.status, 200);
      assert.deepEqual(answer.body, {
        method: 'POST',
        path: '/items?page=2',
        contentType: 'application/json',
        body: '{"greeting":"hello"}',
      });
    },
    wrong: () => ({ url: echoUrl, headers: ['Accept: application/json'] }),
    field: 'headers',
  },
  process_document: {
    valid: { text: DOCUMENT, key_terms: 2 },
    check: (result) => {
      assert.equal(result.structuredContent.title, 'Field notes');
      assert.equal(result.structuredContent.sections.length, 3);
      assert.equal(result.structuredContent.key_terms.length, 2);
    },
    wrong: { text: DOCUMENT, key_terms: 'two' },
    field: 'key_terms',
  },
  python_exec: {
    valid: { code: 'import math\nprint(math.factorial(10))' },
    check: (result) => {
      assert.equal(result.structuredContent.stdout, '3628800\n');
      assert.equal(result.structuredContent.exit_code, 0);
    },
    wrong: { code: 42 },
    field: 'code',
  },
  sample_text: {
    valid: { bytes: 100 },
    check: (result) => {
      assert.equal(textOf(result).length, 100);
      assert.ok(textOf(result).startsWith('line 1: the quick brown fox'), textOf(result));
    },
    wrong: { bytes: 'many' },
    field: 'bytes',
  },
  // This client declares no elicitation: the question cannot be asked.
  confirm: {
    valid: { action: 'delete the draft' },
    toolError: /elicitation is not available/,
    wrong: { action: 7 },
    field: 'action',
  },
  schedule_meeting: {
    valid: {
      title: 'Planning',
      slot: { date: '2030-05-04', start: '09:30', minutes: 45 },
      attendees: [{ name: 'Ada', email: 'ada@example.com' }],
      priority: 'high',
    },
    check: (result) => {
      assert.equal(result.structuredContent.id, 'mtg-2030-05-04-0930');
      assert.equal(result.structuredContent.priority, 'high');
    },
    wrong: {
      title: 'Planning',
      slot: { date: '2030-05-04', start: '09:30', minutes: 'forty-five' },
      attendees: [{ name: 'Ada' }],
    },
    field: 'minutes',
  },
  weather_forecast: {
    valid: { city: 'Paris', days: 2, unit: 'fahrenheit' },
    check: (result) => assert.match(textOf(result), /^Paris, day 1: .*°F\nParis, day 2: /),
    wrong: { city: 'Paris', days: 'two' },
    field: 'days',
  },
};

const argsOf = (value) => (typeof value === 'function' ? value() : value);

async function freePort() {
  const server = createTcpServer();
  await new Promise((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address();
  await new Promise((done) => server.close(done));
  return port;
}

function accepts(port) {
  return new Promise((done) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      done(true);
    });
    socket.once('error', () => done(false));
  });
}

// `command args...` serving MCP over HTTP on a free loopback port (`argsOf`
// gives the arguments for the port), once it accepts connections.
async function startServerOnPort(command, argsOf) {
  const port = await freePort();
  const child = spawn(command, argsOf(port), {
    env: serverEnv,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const exited = new Promise((done) => child.once('exit', (code, signal) => done({ code, signal })));
  const deadline = Date.now() + TIMEOUT;
  while (!(await accepts(port))) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`${command} exited before it accepted connections:\n${stderr}`);
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`${command} did not accept connections on port ${port}:\n${stderr}`);
    }
    await new Promise((done) => setTimeout(done, 25));
  }
  return {
    url: new URL(`http://127.0.0.1:${port}/mcp`),
    stop: async () => {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

// `toolbox serve --http`; `before` are arguments ahead of `serve`
// (`--registry FILE`).
const startHttpServer = (before = []) =>
  startServerOnPort(TOOLBOX, (port) => [...before, 'serve', '--http', `127.0.0.1:${port}`]);

// Ends a test's session: the HTTP session ended as a client does (DELETE),
// the client closed, the server stopped.
async function closeSession(client, transport, stop) {
  if (client) {
    if (transport instanceof StreamableHTTPClientTransport) {
      await transport.terminateSession();
    }
    await client.close();
  }
  if (stop) await stop();
}

const transports = {
  stdio: async () => ({
    transport: new StdioClientTransport({
      command: TOOLBOX,
      args: ['serve'],
      env: serverEnv,
      stderr: 'inherit',
    }),
    stop: async () => {},
  }),
  'streamable HTTP': async () => {
    const server = await startHttpServer();
    return { transport: new StreamableHTTPClientTransport(server.url), stop: server.stop };
  },
};

after(async () => {
  await new Promise((done) => echo.close(done));
  rmSync(files, { recursive: true, force: true });
});

test('every tool the registry offers has arguments in the table', () => {
  assert.ok(expectedNames.length >= 10, `too few tools: ${expectedNames.join(', ')}`);
  const missing = expectedNames.filter((name) => !(name in TOOLS));
  assert.deepEqual(missing, [], `tools with no entry in TOOLS: ${missing.join(', ')}`);
  assert.ok(!expectedNames.includes('search'), 'the configured search tool should be left out');
});

// What the client does with each output schema after `tools/list`, done
// here on the registry's rendering, so that it is checked even when the
// listing itself fails.
test("the SDK's JSON Schema validator takes every output schema without a warning", () => {
  const before = printed.length;
  const validator = new AjvJsonSchemaValidator();
  const compiled = expected.filter((tool) => tool.outputSchema);
  assert.ok(compiled.length >= 5, 'too few output schemas');
  for (const tool of compiled) {
    assert.doesNotThrow(() => validator.getValidator(tool.outputSchema), tool.name);
  }
  const lines = printed.slice(before);
  assert.deepEqual(lines, [], `printed while compiling:\n${lines.join('\n')}`);
});

for (const [kind, start] of Object.entries(transports)) {
  describe(`TypeScript SDK client over ${kind}`, { timeout: TIMEOUT }, () => {
    let client;
    let transport;
    let stop;
    let printedBefore;

    before(async () => {
      printedBefore = printed.length;
      ({ transport, stop } = await start());
      client = new Client({ name: 'toolbox-ts-client-test', version: '1.0.0' });
      await client.connect(transport);
    });

    after(() => closeSession(client, transport, stop));

    test('initialize names the server and offers tools', () => {
      assert.equal(client.getServerVersion().name, 'toolbox');
      assert.ok(client.getServerCapabilities().tools);
    });

    test('tools/list passes the SDK validation and matches the registry', async () => {
      const { tools } = await client.listTools();
      assert.deepEqual(tools.map((tool) => tool.name).sort(), expectedNames);
      const byName = Object.fromEntries(tools.map((tool) => [tool.name, tool]));
      for (const want of expected) {
        assert.deepEqual(byName[want.name].inputSchema, want.inputSchema, `${want.name} inputSchema`);
        assert.deepEqual(byName[want.name].outputSchema, want.outputSchema, `${want.name} outputSchema`);
      }
    });

    test('every tool answers valid arguments', async (t) => {
      for (const name of expectedNames) {
        const entry = TOOLS[name];
        await t.test(name, async () => {
          assert.ok(entry, `${name} has no entry in TOOLS`);
          const result = await client.callTool({ name, arguments: argsOf(entry.valid) });
          if (entry.toolError) {
            assert.equal(result.isError, true, textOf(result));
            assert.match(textOf(result), entry.toolError);
            assert.doesNotMatch(textOf(result), /invalid arguments/);
          } else {
            assert.notEqual(result.isError, true, textOf(result));
            entry.check(result);
          }
        });
      }
    });

    test('every tool refuses a wrong-typed argument, naming it', async (t) => {
      for (const name of expectedNames) {
        const entry = TOOLS[name];
        await t.test(name, async () => {
          assert.ok(entry, `${name} has no entry in TOOLS`);
          const result = await client.callTool({ name, arguments: argsOf(entry.wrong) });
          assert.equal(result.isError, true, textOf(result));
          const text = textOf(result);
          assert.ok(text.includes(`invalid arguments for ${name}`), text);
          assert.ok(text.includes(entry.field), `${JSON.stringify(text)} does not name ${entry.field}`);
        });
      }
    });

    test('an unknown tool is a JSON-RPC error naming it', async () => {
      await assert.rejects(
        client.callTool({ name: 'convert_lenght', arguments: { value: 1 } }),
        (error) => {
          assert.ok(error instanceof McpError, String(error));
          assert.equal(error.code, ErrorCode.InvalidParams);
          assert.match(error.message, /convert_lenght/);
          assert.match(error.message, /did you mean "convert_length"/);
          return true;
        },
      );
    });

    test('tools/list still works afterwards', async () => {
      const { tools } = await client.listTools();
      assert.deepEqual(tools.map((tool) => tool.name).sort(), expectedNames);
    });

    test('log messages arrive at the level the client sets', async () => {
      const logs = [];
      client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => {
        logs.push(notification.params);
      });
      // Over streamable HTTP the server sends log messages on the session's
      // standalone stream, which may deliver them after the call's answer:
      // wait for the number expected, then a little longer for any extra.
      const settle = async (count) => {
        for (let i = 0; i < 100 && logs.length < count; i++) {
          await new Promise((done) => setTimeout(done, 20));
        }
        await new Promise((done) => setTimeout(done, 100));
      };
      const doc = { text: '# Notes\n\n## One\nFirst part.\n\n## Two\nSecond part.' };
      // Every level until the client sets one.
      let result = await client.callTool({ name: 'process_document', arguments: doc });
      assert.notEqual(result.isError, true, textOf(result));
      await settle(2);
      assert.deepEqual(logs.map((log) => log.level), ['debug', 'notice']);
      logs.length = 0;
      await client.setLoggingLevel('notice');
      result = await client.callTool({ name: 'process_document', arguments: doc });
      assert.notEqual(result.isError, true, textOf(result));
      await settle(1);
      assert.deepEqual(logs.map((log) => log.level), ['notice']);
      assert.equal(logs[0].logger, 'process_document');
      assert.match(logs[0].data, /"Notes": 2 section\(s\), 4 words/);
    });

    test('the SDK printed no warnings about the schemas', () => {
      const lines = printed.slice(printedBefore);
      assert.deepEqual(
        lines.filter((line) => /format|schema/i.test(line)),
        [],
        `printed during the run:\n${lines.join('\n')}`,
      );
    });
  });
}

// ------------------------------------------------------------ the proxy
//
// `toolbox --registry FILE serve`, whose registry file names MCP servers, is
// one MCP server with the local tools and theirs: the SDK's client talks to
// toolbox, which talks to the reference server (server-everything, Node)
// and to a small Python SDK server (tests/mcp/python_server.py). The file
// is written here, with the absolute paths of this Node, the reference
// server's entry point and the virtual environment's Python
// (MCP_PYTHON, which tests/mcp/run.sh sets).

const everythingEntry = join(
  nodeModules,
  '@modelcontextprotocol',
  'server-everything',
  'dist',
  'index.js',
);
const python = resolve(
  process.env.MCP_PYTHON || join(here, '..', '..', 'target', 'mcp-venv', 'bin', 'python'),
);
const proxyDir = mkdtempSync(join(tmpdir(), 'toolbox-ts-proxy-'));
const proxyFile = join(proxyDir, 'tools.yaml');
writeFileSync(
  proxyFile,
  [
    'tools:',
    '  - convert_length',
    'mcp_servers:',
    '  everything:',
    `    command: ${JSON.stringify(process.execPath)}`,
    `    args: [${JSON.stringify(everythingEntry)}, stdio]`,
    '    prefix: everything_',
    '  python:',
    `    command: ${JSON.stringify(python)}`,
    `    args: [${JSON.stringify(join(here, 'python_server.py'))}]`,
    '    prefix: py_',
    '',
  ].join('\n'),
);

after(() => rmSync(proxyDir, { recursive: true, force: true }));

const proxyTransports = {
  stdio: async () => ({
    transport: new StdioClientTransport({
      command: TOOLBOX,
      args: ['--registry', proxyFile, 'serve'],
      env: serverEnv,
      stderr: 'inherit',
    }),
    stop: async () => {},
  }),
  'streamable HTTP': async () => {
    const server = await startHttpServer(['--registry', proxyFile]);
    return { transport: new StreamableHTTPClientTransport(server.url), stop: server.stop };
  },
};

for (const [kind, start] of Object.entries(proxyTransports)) {
  describe(`TypeScript SDK client through toolbox as an MCP proxy over ${kind}`, { timeout: TIMEOUT }, () => {
    let client;
    let transport;
    let stop;
    // Each `notifications/tools/list_changed` the proxy sends.
    const changes = [];

    before(async () => {
      ({ transport, stop } = await start());
      client = new Client({ name: 'toolbox-ts-proxy-test', version: '1.0.0' });
      client.setNotificationHandler(ToolListChangedNotificationSchema, (notification) => {
        changes.push(notification);
      });
      await client.connect(transport);
      // The proxy answers at once and adds each server's tools when that
      // server has joined (announced with list_changed): wait for both.
      const remote = ['everything_echo', 'py_add'];
      const deadline = Date.now() + 30_000;
      for (;;) {
        const names = (await client.listTools()).tools.map((tool) => tool.name);
        if (remote.every((name) => names.includes(name))) break;
        if (Date.now() > deadline) throw new Error(`the servers' tools never came: ${names.join(', ')}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    });

    after(() => closeSession(client, transport, stop));

    test('tools/list has the local tools and those of both servers', async () => {
      assert.ok(client.getServerCapabilities().tools.listChanged, 'the proxy announces listChanged');
      const { tools } = await client.listTools();
      const names = tools.map((tool) => tool.name);
      for (const name of ['convert_length', 'everything_echo', 'everything_get-sum', 'py_add', 'py_register_tool']) {
        assert.ok(names.includes(name), `${name} in ${names.join(', ')}`);
      }
      // Only the linked tools the file names.
      assert.ok(!names.includes('weather_forecast'), names.join(', '));
      const echo = tools.find((tool) => tool.name === 'everything_echo');
      assert.equal(echo.description, 'Echoes back the input string');
      assert.deepEqual(echo.inputSchema.required, ['message']);
    });

    test('a remote tool is called through the proxy', async () => {
      const echoed = await client.callTool({
        name: 'everything_echo',
        arguments: { message: 'through the proxy' },
      });
      assert.notEqual(echoed.isError, true, textOf(echoed));
      assert.equal(textOf(echoed), 'Echo: through the proxy');

      const sum = await client.callTool({ name: 'py_add', arguments: { a: 2, b: 40 } });
      assert.notEqual(sum.isError, true, textOf(sum));
      assert.equal(textOf(sum), '2 + 40 = 42');
    });

    test("a remote tool's arguments are checked against its schema", async () => {
      const result = await client.callTool({ name: 'everything_echo', arguments: { message: 7 } });
      assert.equal(result.isError, true, textOf(result));
      assert.match(textOf(result), /invalid arguments for everything_echo/);
    });

    test('a local tool is called as before', async () => {
      const result = await client.callTool({
        name: 'convert_length',
        arguments: { value: 1, from: 'mile', to: 'kilometre' },
      });
      assert.notEqual(result.isError, true, textOf(result));
      assert.equal(textOf(result), '1 mile = 1.6093 kilometre');
    });

    test("a server's new tool reaches the proxy's clients with list_changed", async () => {
      const name = `late_${kind === 'stdio' ? 'stdio' : 'http'}`;
      const before = changes.length;
      const registered = await client.callTool({ name: 'py_register_tool', arguments: { name } });
      assert.equal(textOf(registered), `registered ${name}`);
      const deadline = Date.now() + 20_000;
      let names = [];
      while (Date.now() < deadline) {
        if (changes.length > before) {
          names = (await client.listTools()).tools.map((tool) => tool.name);
          if (names.includes(`py_${name}`)) break;
        }
        await new Promise((done) => setTimeout(done, 50));
      }
      assert.ok(changes.length > before, 'no notifications/tools/list_changed from the proxy');
      assert.ok(names.includes(`py_${name}`), `py_${name} in ${names.join(', ')}`);
      const result = await client.callTool({ name: `py_${name}`, arguments: {} });
      assert.equal(textOf(result), `I am ${name}`);
    });
  });
}

// ------------------------------------------- content, sampling, elicitation
//
// The `conformance-server` example (the tools the MCP conformance suite
// calls, written with #[tool]) over streamable HTTP: an image result, a
// sampling request answered by the client's handler, elicitations accepted
// and declined, and log messages at the level the client sets.

const CONFORMANCE_SERVER = process.env.CONFORMANCE_SERVER || '';
const { CreateMessageRequestSchema, ElicitRequestSchema } = await sdk('types.js');

async function startConformanceServer() {
  if (!CONFORMANCE_SERVER) {
    throw new Error('set CONFORMANCE_SERVER to the built conformance-server binary (tests/mcp/run.sh does)');
  }
  return startServerOnPort(CONFORMANCE_SERVER, (port) => ['--http', `127.0.0.1:${port}`]);
}

describe('TypeScript SDK client and conformance-server over streamable HTTP', { timeout: TIMEOUT }, () => {
  let server;
  let client;
  const sampled = [];
  const elicited = [];
  const elicitAnswers = [];
  const logs = [];

  before(async () => {
    server = await startConformanceServer();
    client = new Client(
      { name: 'ts-sdk-test', version: '1.0.0' },
      { capabilities: { sampling: {}, elicitation: {} } },
    );
    client.setRequestHandler(CreateMessageRequestSchema, async (request) => {
      sampled.push(request.params);
      return {
        role: 'assistant',
        content: { type: 'text', text: 'Paris' },
        model: 'test-model',
        stopReason: 'endTurn',
      };
    });
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      elicited.push(request.params);
      return elicitAnswers.shift();
    });
    client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => {
      logs.push(notification.params);
    });
    await client.connect(new StreamableHTTPClientTransport(server.url));
  });

  after(async () => {
    await client?.close();
    await server?.stop();
  });

  test('an image result arrives as an image block', async () => {
    const result = await client.callTool({ name: 'test_image_content', arguments: {} });
    assert.equal(result.isError, false);
    assert.equal(result.content.length, 1);
    const [image] = result.content;
    assert.equal(image.type, 'image');
    assert.equal(image.mimeType, 'image/png');
    assert.deepEqual([...Buffer.from(image.data, 'base64').subarray(0, 4)], [0x89, 0x50, 0x4e, 0x47]);
  });

  test("a sampling request is answered by the client's handler", async () => {
    const result = await client.callTool({
      name: 'test_sampling',
      arguments: { prompt: 'Capital of France?' },
    });
    assert.equal(result.isError, false, JSON.stringify(result));
    assert.equal(result.content[0].text, 'LLM response: Paris');
    assert.equal(sampled.length, 1);
    assert.equal(sampled[0].maxTokens, 100);
    assert.deepEqual(sampled[0].messages, [
      { role: 'user', content: { type: 'text', text: 'Capital of France?' } },
    ]);
  });

  test('an elicitation accepted, then one declined', async () => {
    elicitAnswers.push({ action: 'accept', content: { username: 'ada', email: 'ada@example.com' } });
    elicitAnswers.push({ action: 'decline' });
    const accepted = await client.callTool({ name: 'test_elicitation', arguments: { message: 'Who?' } });
    const declined = await client.callTool({ name: 'test_elicitation', arguments: { message: 'Again?' } });
    const text = accepted.content[0].text;
    assert.match(text, /^User response: action=accept, content=/);
    assert.deepEqual(JSON.parse(text.split('content=')[1]), { username: 'ada', email: 'ada@example.com' });
    assert.equal(declined.content[0].text, 'User response: action=decline, content={}');
    assert.equal(elicited[0].message, 'Who?');
    assert.deepEqual(Object.keys(elicited[0].requestedSchema.properties).sort(), ['email', 'username']);
  });

  test('log messages arrive at the level the client sets', async () => {
    const waitForLogs = async (count) => {
      const deadline = Date.now() + 5_000;
      while (logs.length < count && Date.now() < deadline) {
        await new Promise((done) => setTimeout(done, 20));
      }
    };
    await client.setLoggingLevel('info');
    await client.callTool({ name: 'test_tool_with_logging', arguments: {} });
    await waitForLogs(3);
    assert.deepEqual(
      logs.map((log) => [log.level, log.logger, log.data]),
      [
        ['info', 'test_tool_with_logging', 'Tool execution started'],
        ['info', 'test_tool_with_logging', 'Tool processing data'],
        ['info', 'test_tool_with_logging', 'Tool execution completed'],
      ],
    );
    logs.length = 0;
    await client.setLoggingLevel('warning');
    await client.callTool({ name: 'test_tool_with_logging', arguments: {} });
    await new Promise((done) => setTimeout(done, 200));
    assert.deepEqual(logs, []);
  });
});

// The SDK's v2 client (`@modelcontextprotocol/client`, which speaks the
// 2026-07-28 revision) over stdio and over streamable HTTP, pinned to that
// revision, in `auto` mode (a `server/discover` probe) and in `legacy` mode
// (`initialize`): the era it lands on, the list (compared with the
// registry's rendering), a call, a call the registry refuses (an error
// result), an unknown tool (a JSON-RPC error), and the list again.
const clientV2 = (path) =>
  import(pathToFileURL(join(nodeModules, '@modelcontextprotocol', 'client', 'dist', path)).href);
const v2 = await clientV2('index.mjs');
const { StdioClientTransport: StdioClientTransportV2 } = await clientV2('stdio.mjs');

const transportsV2 = {
  stdio: async () => ({
    transport: new StdioClientTransportV2({ command: TOOLBOX, args: ['serve'], env: serverEnv, stderr: 'inherit' }),
    stop: async () => {},
  }),
  'streamable HTTP': async () => {
    const server = await startHttpServer();
    return { transport: new v2.StreamableHTTPClientTransport(server.url), stop: server.stop };
  },
};

const modesV2 = [
  ['pinned to 2026-07-28', { pin: '2026-07-28' }, 'modern'],
  ['in auto mode', 'auto', 'modern'],
  ['in legacy mode', 'legacy', 'legacy'],
];

for (const [kind, makeTransport] of Object.entries(transportsV2)) for (const [label, mode, era] of modesV2) {
  describe(`TypeScript SDK v2 client over ${kind} ${label}`, { timeout: TIMEOUT }, () => {
    let client;
    let stop;
    before(async () => {
      const made = await makeTransport();
      stop = made.stop;
      client = new v2.Client({ name: 'toolbox-tests', version: '1.0.0' }, { versionNegotiation: { mode } });
      await client.connect(made.transport);
    });
    after(async () => {
      await client?.close();
      await stop?.();
    });

    test(`connects in the ${era} era and lists the registry's tools`, async () => {
      assert.equal(client.getProtocolEra(), era);
      const { tools } = await client.listTools();
      assert.deepEqual(tools.map((tool) => tool.name).sort(), expectedNames);
    });

    test('calls a tool, and a refused call is an error result', async () => {
      const done = await client.callTool({ name: 'calculator', arguments: { expression: '2+3' } });
      assert.equal(done.isError, false);
      assert.equal(done.structuredContent.result, 5);
      const refused = await client.callTool({ name: 'calculator', arguments: { expression: 5 } });
      assert.equal(refused.isError, true);
      assert.match(textOf(refused), /expression/);
    });

    test('an unknown tool is a JSON-RPC error, and the list works after it', async () => {
      await assert.rejects(
        client.callTool({ name: 'no_such_tool', arguments: {} }),
        (error) => error.code === -32602 && /no_such_tool/.test(error.message),
      );
      const { tools } = await client.listTools();
      assert.equal(tools.length, expectedNames.length);
    });
  });
}

// The v2 client against conformance-server over stdio and over streamable
// HTTP, in the 2026-07-28 era and the legacy one: its resources (a text, a
// blob, a URI template) listed and read, its prompts listed and got with
// arguments, a prompt's argument completed, an unknown resource and prompt
// refused with -32602, and a tool's `resource_link` read back with
// `resources/read`.
const conformanceTransportsV2 = {
  stdio: async () => ({
    transport: new StdioClientTransportV2({ command: CONFORMANCE_SERVER, args: [], env: serverEnv, stderr: 'inherit' }),
    stop: async () => {},
  }),
  'streamable HTTP': async () => {
    const server = await startConformanceServer();
    return { transport: new v2.StreamableHTTPClientTransport(server.url), stop: server.stop };
  },
};

const conformanceModesV2 = [
  ['pinned to 2026-07-28', { pin: '2026-07-28' }],
  ['in legacy mode', 'legacy'],
];

for (const [kind, makeTransport] of Object.entries(conformanceTransportsV2)) {
  for (const [label, mode] of conformanceModesV2) {
    describe(`TypeScript SDK v2 client and conformance-server's resources and prompts over ${kind} ${label}`, {
      timeout: TIMEOUT,
    }, () => {
      let client;
      let stop;
      before(async () => {
        const made = await makeTransport();
        stop = made.stop;
        client = new v2.Client({ name: 'toolbox-tests', version: '1.0.0' }, { versionNegotiation: { mode } });
        await client.connect(made.transport);
      });
      after(async () => {
        await client?.close();
        await stop?.();
      });

      test('lists and reads a text, a blob and a templated resource', async () => {
        const { resources } = await client.listResources();
        const byUri = Object.fromEntries(resources.map((resource) => [resource.uri, resource]));
        assert.equal(byUri['test://static-text']?.mimeType, 'text/plain');
        assert.equal(byUri['test://static-binary']?.mimeType, 'image/png');

        const text = await client.readResource({ uri: 'test://static-text' });
        assert.deepEqual(text.contents, [
          {
            uri: 'test://static-text',
            mimeType: 'text/plain',
            text: 'This is the content of the static text resource.',
          },
        ]);
        const [blob] = (await client.readResource({ uri: 'test://static-binary' })).contents;
        assert.equal(blob.mimeType, 'image/png');
        assert.deepEqual([...Buffer.from(blob.blob, 'base64').subarray(0, 4)], [0x89, 0x50, 0x4e, 0x47]);

        const { resourceTemplates } = await client.listResourceTemplates();
        assert.deepEqual(
          resourceTemplates.map((template) => template.uriTemplate),
          ['test://template/{id}/data'],
        );
        const [data] = (await client.readResource({ uri: 'test://template/7/data' })).contents;
        assert.equal(data.uri, 'test://template/7/data');
        assert.equal(data.mimeType, 'application/json');
        assert.equal(JSON.parse(data.text).id, '7');
      });

      test('an unknown resource and an unknown prompt are -32602', async () => {
        await assert.rejects(
          client.readResource({ uri: 'test://no-such-resource' }),
          (error) => error.code === -32602,
        );
        await assert.rejects(
          client.getPrompt({ name: 'no_such_prompt', arguments: {} }),
          (error) => error.code === -32602,
        );
      });

      test('lists prompts, gets one with arguments and completes an argument', async () => {
        const { prompts } = await client.listPrompts();
        const withArguments = prompts.find((prompt) => prompt.name === 'test_prompt_with_arguments');
        assert.deepEqual(
          withArguments.arguments.map((argument) => [argument.name, argument.required]),
          [
            ['arg1', true],
            ['arg2', true],
          ],
        );
        const got = await client.getPrompt({
          name: 'test_prompt_with_arguments',
          arguments: { arg1: 'a', arg2: 'b' },
        });
        assert.deepEqual(got.messages, [
          { role: 'user', content: { type: 'text', text: "Prompt with arguments: arg1='a', arg2='b'" } },
        ]);

        const ref = { type: 'ref/prompt', name: 'test_prompt_with_arguments' };
        const all = await client.complete({ ref, argument: { name: 'arg1', value: 'par' } });
        assert.deepEqual(all.completion.values, ['paris', 'park', 'party']);
        const one = await client.complete({ ref, argument: { name: 'arg1', value: 'pari' } });
        assert.deepEqual(one.completion.values, ['paris']);
      });

      test("a tool's resource_link is read back with resources/read", async () => {
        const result = await client.callTool({ name: 'test_resource_link', arguments: {} });
        assert.equal(result.isError, false, JSON.stringify(result));
        const [link] = result.content;
        assert.equal(link.type, 'resource_link');
        assert.equal(link.uri, 'test://static-text');
        const read = await client.readResource({ uri: link.uri });
        assert.equal(read.contents[0].mimeType, link.mimeType);
        assert.equal(read.contents[0].text, 'This is the content of the static text resource.');
      });
    });
  }
}
