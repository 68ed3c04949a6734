// The kept results, request states and per-caller shares of the owners part
// of tests/mcp/load-balancer.sh: alice and bob, with access tokens of the
// pinned authorization server, against `toolbox serve --http --stateless
// --auth-* --result-limit 8KB --request-state-key-env VAR` instances C and D
// behind the balancer (which sends each caller to one instance: it hashes
// the Authorization header), and instance E, whose shares are one call and
// one running task a caller (revision 2026-07-28, JSON-RPC over `fetch`).
//
//   node tests/mcp/lb_kept.mjs BALANCER_URL C_URL D_URL E_URL AS_INFO
//
// 1. Alice's sample_text result, cut to the limit, is kept by the instance
//    that made it; she reads its first page through the balancer, again and
//    again (the balancer sends her back there). Of C and D asked directly,
//    exactly one has it. Bob reading her handle, through the balancer and on
//    C and D, gets byte for byte what a handle never issued (hers with one
//    character changed) gets, but for the handle.
// 2. Alice's `confirm` asks her (`input_required`, a `requestState`). Bob
//    sending her state with an answer, through the balancer and on C and
//    D, is refused exactly as a forged state is (-32602). Her own retry
//    with it completes on C and on D: the instances share the key.
// 3. On E (--max-tasks-per-caller 1 --max-calls-per-caller 1): alice's
//    second running task is refused naming maxTasksPerCaller while bob
//    starts one; while alice's call runs, her second call is answered 429
//    and bob's is served.
//
// Prints one line of JSON on stdout: what was checked. Exit code 1 at the
// first problem.

import { token as tokenOf, metaOf, send, messageOf, rpc } from './lb_callers.mjs';

function fail(message) {
  console.error(`kept client: ${message}`);
  process.exit(1);
}

const [balancer, c, d, e, infoText] = process.argv.slice(2);
if (!infoText) fail('usage: lb_kept.mjs BALANCER_URL C_URL D_URL E_URL AS_INFO');
const info = JSON.parse(infoText);
const alice = await tokenOf(info, 'alice', balancer, fail);
const bob = await tokenOf(info, 'bob', balancer, fail);
const checked = {};

/** The result of `tools/call` of `name` with `args` by `bearer`, which
 * must answer. */
async function call(url, bearer, name, args, extra = {}) {
  const { status, message } = await rpc(url, bearer, 'tools/call', name, {
    name,
    arguments: args,
    ...extra,
  });
  if (status !== 200 || message.error || !message.result) {
    fail(`${name} on ${url} got HTTP ${status}: ${JSON.stringify(message)}`);
  }
  return message.result;
}

const textOf = (result) => result.content.map((block) => block.text ?? '').join('\n');

// 1. A kept result.
const cut = await call(balancer, alice, 'sample_text', { bytes: 20000 });
const marker = textOf(cut);
const at = marker.indexOf('handle r-');
if (at < 0 || marker.length > 8192) fail(`sample_text was not cut to 8KB: ${marker.length} bytes`);
const handle = marker.slice(at + 'handle '.length, at + 'handle '.length + 34);
if (!/^r-[0-9a-f]{32}$/.test(handle)) fail(`no handle in the marker: ${marker.slice(at, at + 60)}`);
const read = (url, bearer, h) => call(url, bearer, 'read_result', { handle: h });
for (let n = 0; n < 10; n++) {
  const page = await read(balancer, alice, handle);
  if (page.isError || !textOf(page).includes('line 1: the quick brown fox')) {
    fail(`alice's read ${n + 1} of her result through the balancer: ${JSON.stringify(page)}`);
  }
}
const direct = await Promise.all([c, d].map((url) => read(url, alice, handle)));
if (direct.filter((page) => !page.isError).length !== 1) {
  fail(`alice's result should be kept by exactly one instance: ${JSON.stringify(direct)}`);
}
const last = handle.at(-1) === '0' ? '1' : '0';
const neverIssued = handle.slice(0, -1) + last;
/** The answer to a `read_result` of `h`, written with HANDLE for it. */
const asRead = (result, h) => JSON.stringify(result).replaceAll(h, 'HANDLE');
for (const url of [balancer, c, d]) {
  const refused = await read(url, bob, handle);
  const missing = await read(url, bob, neverIssued);
  if (refused.isError !== true || !textOf(refused).includes('no full result is kept')) {
    fail(`bob read alice's result on ${url}: ${JSON.stringify(refused)}`);
  }
  if (asRead(refused, handle) !== asRead(missing, neverIssued)) {
    fail(`bob on ${url} tells alice's handle from one never issued: ${asRead(refused, handle)} / ${asRead(missing, neverIssued)}`);
  }
}
checked.keptResult = { readsThroughBalancer: 10, instancesHoldingIt: 1, bobRefusedOn: 3 };

// 2. A request state.
const asking = { _meta: metaOf({ elicitation: {} }) };
const action = 'send the report';
const asked = await call(balancer, alice, 'confirm', { action }, asking);
if (asked.resultType !== 'input_required' || typeof asked.requestState !== 'string') {
  fail(`confirm did not ask: ${JSON.stringify(asked)}`);
}
const state = asked.requestState;
const retry = (s, yes) => ({
  name: 'confirm',
  arguments: { action },
  ...asking,
  requestState: s,
  inputResponses: { confirm: { action: 'accept', content: { confirmed: yes } } },
});
const forgedState = state.slice(0, -2) + (state.slice(-2) === 'AA' ? 'BB' : 'AA');
for (const url of [balancer, c, d]) {
  const stolen = await rpc(url, bob, 'tools/call', 'confirm', retry(state, false));
  const forged = await rpc(url, bob, 'tools/call', 'confirm', retry(forgedState, false));
  if (stolen.message.error?.code !== -32602) {
    fail(`bob's retry with alice's state on ${url}: ${JSON.stringify(stolen.message)}`);
  }
  if (JSON.stringify(stolen.message.error) !== JSON.stringify(forged.message.error)) {
    fail(`bob on ${url} tells alice's state from a forged one: ${JSON.stringify(stolen.message.error)} / ${JSON.stringify(forged.message.error)}`);
  }
}
for (const url of [c, d]) {
  const { status, message } = await rpc(url, alice, 'tools/call', 'confirm', retry(state, true));
  const result = message.result;
  if (status !== 200 || result?.resultType !== 'complete' || textOf(result) !== `confirmed: ${action}`) {
    fail(`alice's retry on ${url}: HTTP ${status} ${JSON.stringify(message)}`);
  }
}
checked.requestState = { bobRefusedOn: 3, aliceAnsweredOn: 2 };

// 3. The shares of E, one running task and one call a caller.
const long = { text: 'One part.\n\nAnother part.', pause_ms: 60000 };
const first = await call(e, alice, 'process_document', long);
if (first.resultType !== 'task') fail(`alice's first task on E: ${JSON.stringify(first)}`);
const second = await rpc(e, alice, 'tools/call', 'process_document', {
  name: 'process_document',
  arguments: long,
});
if (second.message.error?.code !== -32603 || !('maxTasksPerCaller' in (second.message.error.data ?? {}))) {
  fail(`alice's second running task on E: ${JSON.stringify(second.message)}`);
}
const bobs = await call(e, bob, 'process_document', long);
if (bobs.resultType !== 'task') fail(`bob's task on E: ${JSON.stringify(bobs)}`);
for (const [bearer, task] of [[alice, first], [bob, bobs]]) {
  await rpc(e, bearer, 'tasks/cancel', task.taskId, { taskId: task.taskId });
}

// Alice's call runs (as its first progress report shows) until it is
// aborted; no tasks are asked for, so it answers on its own response.
const plain = (progressToken) => ({
  name: 'process_document',
  arguments: long,
  _meta: { ...metaOf({}), ...(progressToken ? { progressToken } : {}) },
});
const held = new AbortController();
const running = await fetch(e, {
  method: 'POST',
  signal: held.signal,
  headers: {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    authorization: `Bearer ${alice}`,
    'mcp-protocol-version': '2026-07-28',
    'mcp-method': 'tools/call',
    'mcp-name': 'process_document',
  },
  body: JSON.stringify({ jsonrpc: '2.0', id: 'held', method: 'tools/call', params: plain('held') }),
});
if (running.status !== 200) fail(`alice's held call on E: HTTP ${running.status}`);
const reader = running.body.getReader();
let seen = '';
while (!seen.includes('notifications/progress')) {
  const { value, done } = await reader.read();
  if (done) fail(`alice's held call ended before reporting progress: ${seen}`);
  seen += Buffer.from(value).toString();
}
const hers = await send(e, alice, 'tools/call', 'process_document', plain());
const hersText = await hers.text();
if (hers.status !== 429) fail(`alice's second call on E: HTTP ${hers.status} ${hersText}`);
const his = await send(e, bob, 'tools/call', 'calculator', {
  name: 'calculator',
  arguments: { expression: '6 * 7' },
  _meta: metaOf({}),
});
const hisMessage = messageOf(await his.text());
if (his.status !== 200 || hisMessage.result?.structuredContent?.result !== 42) {
  fail(`bob's call on E while alice's runs: HTTP ${his.status} ${JSON.stringify(hisMessage)}`);
}
held.abort();
await reader.cancel().catch(() => {});
checked.shares = {
  aliceSecondTask: 'refused, maxTasksPerCaller',
  aliceSecondCall: `HTTP ${hers.status}, ${messageOf(hersText).error?.message ?? hersText}`,
  bobsCall: his.status,
};
console.log(JSON.stringify(checked));
