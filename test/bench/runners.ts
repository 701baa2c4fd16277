/**
 * Sources the benchmark writes into its temp dir: the plain-JS child runners (run by bare `node`,
 * so nothing of tsx or the parent process is loaded with the bundle) and the floor handlers
 * (bundled with the same esbuild settings as the functions).
 */

/** The kinds of floor a function is measured against: which DynamoDB call(s) it makes, and nothing else. */
export type FloorKind = 'empty' | 'getCompany' | 'batchGetCompanies' | 'addListMembers' | 'getToken';

/** Printed by the runners before their one JSON result line, so handler logs on stdout cannot be mistaken for it. */
export const RESULT_PREFIX = 'BENCH_RESULT ';

/** The verdict both runners give on a handler's answer: 200 for API events and floors, an Allow policy for the authorizer. */
const OUTCOME = `
function outcome(result) {
  if (result && typeof result.statusCode === 'number') {
    let found = null;
    try {
      const body = JSON.parse(result.body);
      if (Array.isArray(body)) found = body.filter((item) => item && item.message === null).length;
    } catch {}
    return { ok: result.statusCode >= 200 && result.statusCode < 300, status: result.statusCode, found };
  }
  const effect = result && result.policyDocument && result.policyDocument.Statement[0].Effect;
  return { ok: effect === 'Allow', status: effect || 'none', found: null };
}
// An event may hold '{{seq}}' (a number new to every call of the run: a list name that must be unique)
// and '{{pooled}}' (the seq-th id of the pool the bench prepared: a list each DELETE may delete once).
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
  getRemainingTimeInMillis: () => 10000,
};
function report(result) {
  process.stdout.write('\\n${RESULT_PREFIX}' + JSON.stringify(result) + '\\n', () => process.exit(0));
}
`;

/**
 * Cold: argv = bundle, event file. Times require(bundle) plus the first invocation, in this fresh process.
 * The event is read before the clock starts: only the function's own load and first request count.
 */
export const COLD_RUNNER = `'use strict';
const { readFileSync } = require('node:fs');
${OUTCOME}
const [bundle, eventFile] = process.argv.slice(2);
const event = fresh(JSON.parse(readFileSync(eventFile, 'utf8')));
// The Lambda runtime has stdout set up before it loads the handler: don't charge its lazy set-up to the first log line.
process.stdout;
const t0 = performance.now();
const { handler } = require(bundle);
const t1 = performance.now();
const settle = (judge) => (value) => {
  const t2 = performance.now();
  // Judged after the clock stops: parsing the answer is not the function's work.
  report({ loadMs: t1 - t0, firstMs: t2 - t1, totalMs: t2 - t0, ...judge(value) });
};
Promise.resolve()
  .then(() => handler(event, context))
  .then(
    settle(outcome),
    settle((error) => ({ ok: false, status: String((error && error.message) || error), found: null })),
  );
`;

/**
 * Warm: argv = bundle, events file (a JSON array, used in turn), warm-up count, measured count.
 * Per measured call: wall time, the handler's request log line, and, from a hook on http.request,
 * the DynamoDB round trips and the time at least one of them was in flight (the SDK talks HTTP/1.1
 * to DynamoDB Local through node:http). The log line sums the ms of parallel calls, so it can
 * count the same wait twice; the in-flight union cannot.
 */
export const WARM_RUNNER = `'use strict';
const { readFileSync } = require('node:fs');
const http = require('node:http');
${OUTCOME}
const [bundle, eventsFile, warmupArg, measuredArg] = process.argv.slice(2);
const events = JSON.parse(readFileSync(eventsFile, 'utf8'));
const warmup = Number(warmupArg);
const measured = Number(measuredArg);

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

const lines = [];
const log = console.log;
console.log = (...args) => {
  if (typeof args[0] === 'string') lines.push(args[0]);
  log.apply(console, args);
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

function requestLine() {
  for (let i = lines.length - 1; i >= 0; i--) {
    try {
      const parsed = JSON.parse(lines[i]);
      if (parsed && parsed.message === 'request') return parsed;
    } catch {}
  }
  return null;
}

async function main() {
  const { handler } = require(bundle);
  const samples = [];
  for (let i = 0; i < warmup + measured; i++) {
    // A fresh copy per call, as Lambda gives: middy parses the body in place.
    const event = fresh(structuredClone(events[i % events.length]));
    lines.length = 0;
    sink = { calls: 0, spans: [] };
    const started = performance.now();
    let answer;
    let failure = null;
    try {
      answer = await handler(event, context);
    } catch (error) {
      failure = { ok: false, status: String((error && error.message) || error), found: null };
    }
    const wallMs = performance.now() - started;
    // Judged after the clock stops: parsing a 100-company body costs ms the handler did not spend.
    const result = failure || outcome(answer);
    const line = requestLine();
    if (i >= warmup) {
      samples.push({
        wallMs,
        ok: result.ok,
        status: result.status,
        found: result.found,
        socketCalls: sink.calls,
        inFlightMs: inFlight(sink.spans),
        log: line && line.dynamodb ? { durationMs: line.durationMs, calls: line.dynamodb.calls, ms: line.dynamodb.ms } : null,
      });
    }
    sink = null;
  }
  report({ samples });
}
main().catch((error) => report({ error: String((error && error.stack) || error) }));
`;

const CLIENT = `
import { BatchGetItemCommand, DynamoDBClient, GetItemCommand } from '@aws-sdk/client-dynamodb';
// Configured as lib/storage/client.ts configures the functions' client for DynamoDB Local.
const client = new DynamoDBClient({
  maxAttempts: 3,
  endpoint: process.env.DYNAMODB_ENDPOINT,
  region: process.env.AWS_REGION || 'local',
  credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
});
const table = process.env.TABLE_NAME;
const companyKey = (country, number) => ({ pk: { S: 'COMPANY#' + country + '#' + number }, sk: { S: 'COMPANY' } });
// The attributes the financials endpoints read (lib/companies/store.ts), so the floor moves the same bytes.
const attributes = ['pk', 'country', 'companyNumber', 'name', 'place', 'vatNumber', 'website', 'legalForm', 'foundedOn', 'activities', 'periods'];
const projection = {
  ProjectionExpression: attributes.map((_, i) => '#p' + i).join(','),
  ExpressionAttributeNames: Object.fromEntries(attributes.map((a, i) => ['#p' + i, a])),
};
`;

/** Floor handlers: the same DynamoDB call(s) as the function, with the bare SDK and nothing else. */
export const FLOOR_SOURCES: Record<FloorKind, string> = {
  empty: `export const handler = async () => ({ statusCode: 200, body: '{}' });\n`,
  getCompany: `${CLIENT}
export const handler = async (event) => {
  const { countryCode, companyNumber } = event.pathParameters;
  const out = await client.send(
    new GetItemCommand({ TableName: table, Key: companyKey(countryCode, companyNumber), ...projection }),
  );
  return { statusCode: out.Item ? 200 : 404, body: JSON.stringify({ items: out.Item ? 1 : 0 }) };
};
`,
  batchGetCompanies: `${CLIENT}
export const handler = async (event) => {
  const keys = JSON.parse(event.body).companies.map((c) => companyKey(c.countryCode, c.companyNumber));
  const parts = [];
  for (let i = 0; i < keys.length; i += 100) parts.push(keys.slice(i, i + 100));
  const pages = await Promise.all(
    parts.map((Keys) => client.send(new BatchGetItemCommand({ RequestItems: { [table]: { Keys, ...projection } } }))),
  );
  const items = pages.reduce((n, page) => n + page.Responses[table].length, 0);
  return { statusCode: 200, body: JSON.stringify({ items }) };
};
`,
  // PUT /v1/lists/{id}/companies by number: one BatchGetItem of the companies (name, place, contacts),
  // then the members in conditional transactions of 49 (member, order item, the list's counters),
  // dropping a member whose condition says it is there already and trying the rest again.
  addListMembers: `${CLIENT}
import { TransactWriteItemsCommand } from '@aws-sdk/client-dynamodb';
export const handler = async (event) => {
  const account = event.requestContext.authorizer.accountId;
  const me = event.requestContext.authorizer.userEmail;
  const listId = event.pathParameters.id;
  const keys = JSON.parse(event.body).companies.map((c) => companyKey(c.country, c.companyNumber));
  const out = await client.send(
    new BatchGetItemCommand({
      RequestItems: {
        [table]: {
          Keys: keys,
          ProjectionExpression: '#pk, #name, #place, #contacts',
          ExpressionAttributeNames: { '#pk': 'pk', '#name': 'name', '#place': 'place', '#contacts': 'contacts' },
        },
      },
    }),
  );
  const now = new Date();
  const inverted = String(999999999999999 - now.getTime()).padStart(15, '0');
  let pending = out.Responses[table].map((item) => ({
    ref: item.pk.S.slice('COMPANY#'.length),
    contacts: item.contacts ? JSON.parse(item.contacts.S).length : 0,
  }));
  let added = 0;
  while (pending.length > 0) {
    const part = pending.slice(0, 49);
    const list = 'ACCOUNT#' + account + '#LIST#' + listId;
    try {
      await client.send(
        new TransactWriteItemsCommand({
          TransactItems: [
            ...part.flatMap((m) => [
              {
                Put: {
                  TableName: table,
                  Item: {
                    pk: { S: list }, sk: { S: 'COMPANY#' + m.ref }, gsi1pk: { S: 'LISTED#' + m.ref }, gsi1sk: { S: list },
                    entity: { S: 'ListMember' }, state: { S: 'SAVED' }, matchedSince: { S: now.toISOString() },
                    contacts: { N: String(m.contacts) },
                  },
                  ConditionExpression: 'attribute_not_exists(pk)',
                },
              },
              {
                Put: {
                  TableName: table,
                  Item: {
                    pk: { S: list + '#SAVED' }, sk: { S: inverted + '#' + m.ref },
                    gsi1pk: { S: list + '#ALL' }, gsi1sk: { S: inverted + '#' + m.ref },
                    entity: { S: 'ListOrder' }, state: { S: 'SAVED' }, contacts: { N: String(m.contacts) },
                  },
                },
              },
            ]),
            {
              Update: {
                TableName: table,
                Key: { pk: { S: 'ACCOUNT#' + account }, sk: { S: 'LIST#' + listId } },
                UpdateExpression: 'ADD nSaved :n, nContacts :c SET updatedAt = :now',
                ConditionExpression: 'attribute_exists(pk) AND #type = :type AND (#shared = :true OR #createdBy = :me)',
                ExpressionAttributeNames: { '#type': 'type', '#shared': 'shared', '#createdBy': 'createdBy' },
                ExpressionAttributeValues: {
                  ':n': { N: String(part.length) },
                  ':c': { N: String(part.reduce((n, m) => n + m.contacts, 0)) },
                  ':now': { S: now.toISOString() }, ':type': { S: 'STATIC' }, ':true': { BOOL: true }, ':me': { S: me },
                },
              },
            },
          ],
        }),
      );
      added += part.length;
      pending = pending.slice(49);
    } catch (error) {
      const reasons = (error.CancellationReasons || []).map((r) => r.Code);
      const present = new Set(part.filter((_, i) => reasons[2 * i] === 'ConditionalCheckFailed').map((m) => m.ref));
      if (present.size === 0) throw error;
      pending = pending.filter((m) => !present.has(m.ref));
    }
  }
  return { statusCode: 200, body: JSON.stringify({ added }) };
};
`,
  getToken: `${CLIENT}
import { createHash } from 'node:crypto';
export const handler = async (event) => {
  const token = event.authorizationToken.replace(/^Bearer /, '');
  const hash = createHash('sha256').update(token).digest('hex');
  const out = await client.send(new GetItemCommand({ TableName: table, Key: { pk: { S: 'TOKEN#' + hash }, sk: { S: 'TOKEN' } } }));
  return { statusCode: out.Item ? 200 : 401, body: '{}' };
};
`,
};
