/**
 * The plain-JS child runners the benchmark writes into its temp dir, run by bare `node` so nothing of
 * tsx or the parent process is loaded with the bundle: the cold runner (one fresh process, one call)
 * and the warm runner (a long-lived process driven over IPC). The floor handlers they also run are in
 * floor-sources.ts.
 */
/** Printed by the cold runner before its one JSON result line, so handler logs on stdout cannot be mistaken for it. */
export const RESULT_PREFIX = 'BENCH_RESULT ';

/** The verdict both runners give on a handler's answer: 200 for API events and floors, an Allow policy for the authorizer. */
const OUTCOME = `
// \`found\`: the items of a bulk answer found (message null), when asked (it parses the body).
function outcome(result, countFound = true) {
  if (result && typeof result.statusCode === 'number') {
    let found = null;
    try {
      const body = countFound ? JSON.parse(result.body) : null;
      if (Array.isArray(body)) found = body.filter((item) => item && item.message === null).length;
    } catch {}
    return { ok: result.statusCode >= 200 && result.statusCode < 300, status: result.statusCode, found };
  }
  const effect = result && result.policyDocument && result.policyDocument.Statement[0].Effect;
  return { ok: effect === 'Allow', status: effect || 'none', found: null };
}
// An event may hold '{{seq}}' (a number new to every call of the function's run: a list name that must be unique)
// and '{{pooled}}' (the seq-th id of the pool a case's setup prepared: a list each DELETE deletes once).
// Filled in before the clock starts.
function fresh(event) {
  const fs = require('node:fs');
  const text = JSON.stringify(event);
  if (!text.includes('{{seq}}') && !text.includes('{{pooled}}')) return event;
  const seq = Number(fs.readFileSync(process.env.BENCH_SEQ_FILE, 'utf8')) + 1;
  fs.writeFileSync(process.env.BENCH_SEQ_FILE, String(seq));
  const pool = JSON.parse(fs.readFileSync(process.env.BENCH_POOL_FILE, 'utf8'));
  return JSON.parse(text.replaceAll('{{seq}}', String(seq)).replaceAll('{{pooled}}', String(pool[seq % pool.length])));
}
const context = {
  awsRequestId: 'bench',
  functionName: 'bench',
  callbackWaitsForEmptyEventLoop: true,
  // Lambda's deadline as middy sees it (it answers just before): 10 s, longer under valgrind (instructions.ts).
  getRemainingTimeInMillis: () => Number(process.env.BENCH_REMAINING_MS || 10000),
};
const failure = (error) => ({ ok: false, status: String((error && error.message) || error), found: null });
// As the Lambda runtime does before it loads a handler: stdout set up, and console.log replaced by a
// writer of util.format's line (Node's own Console, never used on Lambda, costs ~1.8 ms at its first call).
const { format } = require('node:util');
process.stdout;
const writeLine = (line) => process.stdout.write(line + '\\n');
console.log = (...args) => writeLine(format(...args));
`;

/**
 * Round trips and in-flight time, from a hook on http.request (the SDK talks HTTP/1.1 to DynamoDB Local
 * through node:http; it looks `request` up on the module at each call, so the hook sees every attempt):
 * `sink` collects [start, end] of each exchange, from the request until its response has ended. The
 * in-flight time is the union of the spans, so parallel calls are not counted twice.
 */
const IN_FLIGHT = `
const http = require('node:http');
let sink = null;
const request = http.request;
http.request = function (...args) {
  const req = request.apply(this, args);
  const target = sink;
  if (target) {
    const started = performance.now();
    target.calls += 1;
    req.once('response', (res) => res.once('end', () => target.spans.push([started, performance.now()])));
  }
  return req;
};
function inFlight(spans) {
  spans.sort((a, b) => a[0] - b[0]);
  let total = 0;
  let end = -Infinity;
  for (const [s, e] of spans) {
    if (e <= end) continue;
    total += e - Math.max(s, end);
    end = e;
  }
  return total;
}
const cpuMs = (since) => {
  const { user, system } = process.cpuUsage(since);
  return (user + system) / 1000;
};
`;

/**
 * Cold: argv = bundle, event file. A fresh process: times require(bundle) and the first invocation, the
 * process CPU over both, and how long the first invocation had a DynamoDB request in flight (so the
 * cold figure can leave out the service's time: module load + the request's own work). The event is
 * read before the clock starts: only the function's own load and first request count.
 */
export const COLD_RUNNER = `'use strict';
const { readFileSync } = require('node:fs');
${OUTCOME}
${IN_FLIGHT}
const [bundle, eventFile] = process.argv.slice(2);
const event = fresh(JSON.parse(readFileSync(eventFile, 'utf8')));
sink = { calls: 0, spans: [] };
const cpu0 = process.cpuUsage();
const t0 = performance.now();
const { handler } = require(bundle);
const t1 = performance.now();
const settle = (judge) => (value) => {
  const t2 = performance.now();
  const cpu = cpuMs(cpu0);
  const flight = inFlight(sink.spans);
  // Judged after the clock stops: parsing the answer is not the function's work.
  const result = { loadMs: t1 - t0, firstMs: t2 - t1, totalMs: t2 - t0, inFlightMs: flight, cpuMs: cpu, calls: sink.calls, ...judge(value) };
  process.stdout.write('\\n${RESULT_PREFIX}' + JSON.stringify(result) + '\\n', () => process.exit(0));
};
Promise.resolve()
  .then(() => handler(event, context))
  // What Lambda's Node.js runtime does with the answer before it posts it (billed to the call).
  .then((answer) => (JSON.stringify(answer), answer))
  .then(settle(outcome), settle(failure));
`;

/**
 * Warm: argv = bundle, events file (a JSON array, used in turn). A long-lived process driven over IPC,
 * so a function and its floor can take turns round by round without paying a cold start each time:
 * the parent sends { calls: n }, the runner makes n calls and answers { samples } (or { error }).
 * Per call: wall time, process CPU (process.cpuUsage: the main thread and V8's helper threads, as
 * Lambda bills them) up to the answer serialised as the runtime serialises it, DynamoDB round trips and
 * in-flight time.
 */
export const WARM_RUNNER = `'use strict';
const { readFileSync } = require('node:fs');
${OUTCOME}
${IN_FLIGHT}
const [bundle, eventsFile] = process.argv.slice(2);
const events = JSON.parse(readFileSync(eventsFile, 'utf8'));

const { handler } = require(bundle);
let next = 0;
let lastAnswer = null;

async function run(count) {
  const samples = [];
  let first = null;
  for (let i = 0; i < count; i++) {
    // A fresh copy per call, as Lambda gives: middy parses the body in place.
    const event = fresh(structuredClone(events[next++ % events.length]));
    sink = { calls: 0, spans: [] };
    const cpu0 = process.cpuUsage();
    const started = performance.now();
    let answer;
    let failed = null;
    try {
      answer = await handler(event, context);
      // What Lambda's Node.js runtime does with the answer before it posts it (billed to the call).
      JSON.stringify(answer);
    } catch (error) {
      failed = failure(error);
    }
    const wallMs = performance.now() - started;
    const cpu = cpuMs(cpu0);
    // Judged after the clocks stop, and the body (for \`found\`) only once a round, after the last
    // call: parsing a 260 KB bulk answer after every call left garbage whose collection fell in the
    // next calls' CPU (about 0.2 ms a call for bulk financials), work the handler never did.
    const result = failed || outcome(answer, false);
    if (i === 0 && !failed) first = answer;
    samples.push({
      wallMs,
      cpuMs: cpu,
      ok: result.ok,
      status: result.status,
      found: result.found,
      socketCalls: sink.calls,
      inFlightMs: inFlight(sink.spans),
    });
    sink = null;
  }
  if (first) samples[0].found = outcome(first).found;
  lastAnswer = first;
  return samples;
}

/**
 * { answerCost: true }, once after the rounds: the least CPU any handler pays to send the answer it gave
 * first in the last round: its body written from the parsed JSON (one JSON.stringify, as an answer built
 * from objects is), plus the runtime's serialisation of the result. Median of 25, in ms; 0 for a body
 * that is not JSON. The floors answer a few bytes, so this is the part of a function's CPU no floor pays.
 */
function answerCost() {
  if (!lastAnswer || typeof lastAnswer.body !== 'string') return 0;
  let parsed;
  try {
    parsed = JSON.parse(lastAnswer.body);
  } catch {
    return 0;
  }
  const times = [];
  for (let i = 0; i < 25; i++) {
    const cpu0 = process.cpuUsage();
    JSON.stringify({ ...lastAnswer, body: JSON.stringify(parsed) });
    times.push(cpuMs(cpu0));
  }
  return times.sort((a, b) => a - b)[12];
}

process.on('message', (message) => {
  if (message.exit) process.exit(0);
  if (message.answerCost) {
    process.send({ answerMs: answerCost() });
    return;
  }
  run(message.calls).then(
    (samples) => process.send({ samples }),
    (error) => process.send({ error: String((error && error.stack) || error) }),
  );
});
process.send({ ready: true });
`;
