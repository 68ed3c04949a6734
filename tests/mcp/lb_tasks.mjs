// The tasks part of tests/mcp/load-balancer.sh: MCP's tasks extension
// (revision 2026-07-28, JSON-RPC over `fetch`) through the load balancer in
// front of two `toolbox serve --http --tasks redis://...` instances that
// share their tasks through Redis.
//
//   node tests/mcp/lb_tasks.mjs BALANCER_URL A_URL B_URL [TASKS]
//
// 1. TASKS (100 by default) `tools/call`s of `process_document` through the
//    balancer, each answered with a task, each read with `tasks/get`
//    through the balancer until it has ended, and each result checked
//    against the document it was given.
// 2. A long task started on instance A is cancelled through instance B,
//    and reads as cancelled on A.
// 3. A long task is started on A, and its id printed: the script then
//    restarts A and checks, with `restarted`, that it reads as failed.
//
// Prints one line of JSON on stdout: the tasks made, the seconds they
// took, a finished task's id and the running task's id. Exit code 1 at the
// first problem.
//
//   node tests/mcp/lb_tasks.mjs restarted URL FINISHED_ID RUNNING_ID
//
// reads both through URL: the finished one must still be completed, the
// running one must read as failed within 30 s.

const PROTOCOL = '2026-07-28';
const TASKS = 'io.modelcontextprotocol/tasks';

function fail(message) {
  console.error(`tasks client: ${message}`);
  process.exit(1);
}

let nextId = 1;
async function rpc(url, method, name, params) {
  const body = {
    jsonrpc: '2.0',
    id: nextId++,
    method,
    params: {
      ...params,
      _meta: {
        'io.modelcontextprotocol/protocolVersion': PROTOCOL,
        'io.modelcontextprotocol/clientCapabilities': { extensions: { [TASKS]: {} } },
      },
    },
  };
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': PROTOCOL,
      'mcp-method': method,
      'mcp-name': name,
    },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  if (response.status !== 200) fail(`${method} got HTTP ${response.status}: ${text}`);
  const data = text.split('\n').filter((line) => line.startsWith('data: ')).pop();
  const message = JSON.parse(data ? data.slice(6) : text);
  if (message.error) fail(`${method} failed: ${JSON.stringify(message.error)}`);
  return message.result;
}

const call = (url, text, pauseMs) =>
  rpc(url, 'tools/call', 'process_document', {
    name: 'process_document',
    arguments: { text, pause_ms: pauseMs },
  });

async function settled(url, id, seconds = 30) {
  const deadline = Date.now() + seconds * 1000;
  for (;;) {
    const task = await rpc(url, 'tasks/get', id, { taskId: id });
    if (!['working', 'input_required'].includes(task.status)) return task;
    if (Date.now() > deadline) fail(`task ${id} still ${task.status} after ${seconds} s`);
    await new Promise((done) => setTimeout(done, 50));
  }
}

const args = process.argv.slice(2);
if (args[0] === 'restarted') {
  const [, url, finished, running] = args;
  const done = await rpc(url, 'tasks/get', finished, { taskId: finished });
  if (done.status !== 'completed') fail(`the finished task reads ${done.status} after the restart`);
  const lost = await settled(url, running, 40);
  if (lost.status !== 'failed') fail(`the running task reads ${lost.status}, not failed`);
  if (!/stopped before it finished/.test(lost.statusMessage ?? '')) {
    fail(`the failed task does not say why: ${JSON.stringify(lost)}`);
  }
  console.log(JSON.stringify({ finished: done.status, running: lost.status }));
  process.exit(0);
}

const [balancer, a, b, tasksArg = '100'] = args;
if (!b) fail('usage: lb_tasks.mjs BALANCER_URL A_URL B_URL [TASKS]');
const count = Number(tasksArg);
const started = Date.now();
const made = [];
for (let n = 0; n < count; n++) {
  const words = n + 1;
  const text = Array.from({ length: words }, (_, i) => `word${i}`).join(' ') + '.';
  const created = await call(balancer, text, 0);
  if (created.resultType !== 'task' || !created.taskId) {
    fail(`call ${n} was not answered with a task: ${JSON.stringify(created)}`);
  }
  made.push({ id: created.taskId, words });
}
for (const { id, words } of made) {
  const task = await settled(balancer, id);
  if (task.status !== 'completed') fail(`task ${id} ended ${task.status}`);
  const counted = task.result?.structuredContent?.words;
  if (counted !== words) fail(`task ${id} counted ${counted} words, not ${words}`);
}
const seconds = (Date.now() - started) / 1000;

const long = await call(a, 'One part.\n\nAnother part.', 20000);
const ack = await rpc(b, 'tasks/cancel', long.taskId, { taskId: long.taskId });
if (ack.resultType !== 'complete') fail(`the cancel was not acknowledged: ${JSON.stringify(ack)}`);
const cancelled = await settled(a, long.taskId);
if (cancelled.status !== 'cancelled') fail(`the task cancelled through B reads ${cancelled.status}`);

const running = await call(a, 'One part.\n\nAnother part.', 20000);
console.log(JSON.stringify({ tasks: count, seconds, finished: made[0].id, running: running.taskId }));
