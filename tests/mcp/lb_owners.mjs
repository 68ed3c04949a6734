// The owners part of tests/mcp/load-balancer.sh: two callers, alice and
// bob, with access tokens of the pinned authorization server
// (tests/mcp/auth/authorization-server.mjs, the authorization code grant
// with PKCE, signed in headlessly as each account), against two
// `toolbox serve --http --stateless --tasks redis://... --auth-*` instances
// behind the load balancer (revision 2026-07-28, JSON-RPC over `fetch`).
//
//   node tests/mcp/lb_owners.mjs BALANCER_URL A_URL B_URL AS_INFO [FLOOD]
//
// AS_INFO is the line of JSON the authorization server printed. Tokens are
// issued for BALANCER_URL, the resource both instances serve.
//
// 1. Alice starts a long task on instance A. Bob cannot get, update or
//    cancel it, on A or B: each answer is the one an unknown task id gets
//    (the same code, the same message but for the id). Alice reads it
//    through B (its owner is kept with it in Redis), and cancels it.
// 2. Bob makes FLOOD (10,000 by default) long task calls through the
//    balancer, 32 at a time: beyond his share (16 tasks running for each
//    caller in each instance, each task running for 30 s, process_document's
//    time limit; the balancer sends all his calls to one instance, as it
//    hashes his Authorization header) each is refused with an error naming
//    the limit; alice then starts a task through each instance.
//
// Prints one line of JSON on stdout: what bob got, and the seconds the
// flood took. Exit code 1 at the first problem.

import { token as tokenOf, rpc } from './lb_callers.mjs';

function fail(message) {
  console.error(`owners client: ${message}`);
  process.exit(1);
}

const token = (info, account, resource) => tokenOf(info, account, resource, fail);

/** The result of `method`, which must succeed. */
async function ok(url, bearer, method, name, params) {
  const { status, message } = await rpc(url, bearer, method, name, params);
  if (status !== 200 || message.error || !message.result) {
    fail(`${method} got HTTP ${status}: ${JSON.stringify(message)}`);
  }
  return message.result;
}

const long = (pauseMs) => ({
  name: 'process_document',
  arguments: { text: 'One part.', pause_ms: pauseMs },
});

/** The error's code and message, the id `id` written ID. */
const shape = (message, id) => {
  if (!message.error) fail(`expected an error, got ${JSON.stringify(message)}`);
  return `${message.error.code} ${message.error.message.replaceAll(id, 'ID')}`;
};

const [balancer, a, b, infoText, floodArg = '10000'] = process.argv.slice(2);
if (!infoText) fail('usage: lb_owners.mjs BALANCER_URL A_URL B_URL AS_INFO [FLOOD]');
const info = JSON.parse(infoText);
const alice = await token(info, 'alice', balancer);
const bob = await token(info, 'bob', balancer);

// 1. Alice's task is unknown to bob, on either instance.
const task = await ok(a, alice, 'tools/call', 'process_document', long(60000));
if (task.resultType !== 'task') fail(`not a task: ${JSON.stringify(task)}`);
const id = task.taskId;
const unknown = '0123456789abcdef0123456789abcdef';
const answers = { inputResponses: { 'elicitation-1': { action: 'accept', content: {} } } };
for (const url of [a, b]) {
  for (const [method, extra] of [
    ['tasks/get', {}],
    ['tasks/update', answers],
    ['tasks/cancel', {}],
  ]) {
    const refused = await rpc(url, bob, method, id, { taskId: id, ...extra });
    const missing = await rpc(url, bob, method, unknown, { taskId: unknown, ...extra });
    if (refused.message.error?.code !== -32602) {
      fail(`bob's ${method} of alice's task: ${JSON.stringify(refused.message)}`);
    }
    if (shape(refused.message, id) !== shape(missing.message, unknown)) {
      fail(`bob's ${method} tells alice's task from an unknown one: ${JSON.stringify(refused.message)}`);
    }
  }
}
const listed = await rpc(balancer, bob, 'tasks/list', '', {});
if (listed.message.error?.code !== -32601) fail(`tasks/list: ${JSON.stringify(listed.message)}`);
const hers = await ok(b, alice, 'tasks/get', id, { taskId: id });
if (hers.status !== 'working') fail(`alice's task reads ${hers.status} after bob's cancel`);
await ok(b, alice, 'tasks/cancel', id, { taskId: id });
for (let n = 0; ; n++) {
  const now = await ok(a, alice, 'tasks/get', id, { taskId: id });
  if (now.status === 'cancelled') break;
  if (n > 200) fail(`alice's task did not end when she cancelled it: ${now.status}`);
  await new Promise((done) => setTimeout(done, 50));
}

// 2. Bob's flood leaves alice room.
const flood = Number(floodArg);
const started = Date.now();
const got = { created: 0, refused: {} };
const bobsTasks = [];
let next = 0;
async function worker() {
  while (next < flood) {
    next += 1;
    const { status, message } = await rpc(balancer, bob, 'tools/call', 'process_document', long(60000));
    if (message.result?.resultType === 'task') {
      got.created += 1;
      bobsTasks.push(message.result.taskId);
      continue;
    }
    const data = message.error?.data ?? {};
    const limit = Object.keys(data)[0];
    if (!message.error || !limit || !message.error.message.includes(limit)) {
      fail(`bob's call ${next} (HTTP ${status}) is refused without naming a limit: ${JSON.stringify(message)}`);
    }
    got.refused[limit] = (got.refused[limit] ?? 0) + 1;
  }
}
await Promise.all(Array.from({ length: 32 }, worker));
const seconds = (Date.now() - started) / 1000;
// Each of bob's tasks runs until process_document's time limit (30 s), so
// each 30 s gives him his share in each instance again (at most both
// instances', whatever the balancer does).
const windows = 1 + Math.floor(seconds / 30);
if (got.created > 32 * windows) {
  fail(`bob started ${got.created} tasks in ${seconds} s, over his share of 16 in each instance`);
}
if (got.created + Object.values(got.refused).reduce((x, y) => x + y, 0) !== flood) {
  fail(`bob's ${flood} calls were not all answered: ${JSON.stringify(got)}`);
}
for (const url of [a, b, balancer]) {
  const mine = await ok(url, alice, 'tools/call', 'process_document', long(0));
  if (mine.resultType !== 'task') fail(`alice's task was not made: ${JSON.stringify(mine)}`);
}
for (const taskId of bobsTasks) {
  await ok(balancer, bob, 'tasks/cancel', taskId, { taskId });
}
console.log(JSON.stringify({ bob: got, seconds }));
