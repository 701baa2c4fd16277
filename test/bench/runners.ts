/**
 * Sources the benchmark writes into its temp dir: the plain-JS child runners (run by bare `node`,
 * so nothing of tsx or the parent process is loaded with the bundle) and the floor handlers
 * (bundled with the same esbuild settings as the functions).
 */
import { CONTACTS_PROJECTION, DETAILS_PROJECTION } from '../../lib/companies/details-store';
import { FINANCIALS_PROJECTION } from '../../lib/companies/store';
import { COUNTRIES } from '../../lib/companies/identifiers';
import { MAX_ENTRIES } from '../../lib/search/search';
import { LOOKALIKES_PROJECTION } from '../../lib/lookalikes/store';
import { DEFAULT_COLUMNS } from '../../lib/lists/manage';
import { DRAWN_LIST_IDS, LIST_COUNT_ATTRIBUTE, MAX_LISTS_PER_ACCOUNT } from '../../lib/lists/store/list-ids';

/** The kinds of floor a function is measured against: which DynamoDB call(s) it makes, and nothing else. */
export type FloorKind =
  | 'empty'
  | 'getCompany'
  | 'batchGetCompanies'
  | 'getCompanyDetails'
  | 'batchGetCompanyDetails'
  | 'getCompanyContacts'
  | 'searchIndex'
  | 'replay'
  | 'getLookalikes'
  | 'batchGetLookalikes'
  | 'getRelationships'
  | 'batchGetRelationships'
  | 'getToken'
  | 'legalEntityUpdates'
  | 'accountLists'
  | 'listCompanies'
  | 'listContacts'
  | 'addListMembers'
  | 'createStaticList';

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

const CLIENT = `
import {
  BatchGetItemCommand,
  DynamoDBClient,
  GetItemCommand,
  QueryCommand,
  TransactWriteItemsCommand,
} from '@aws-sdk/client-dynamodb';
// Configured as lib/storage/client.ts configures the functions' client for DynamoDB Local.
const client = new DynamoDBClient({
  maxAttempts: 3,
  endpoint: process.env.DYNAMODB_ENDPOINT,
  region: process.env.AWS_REGION || 'local',
  credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
});
const table = process.env.TABLE_NAME;
// A company's items (lib/storage/keys.ts): the record (COMPANY), its lookalikes, its relationships.
const companyKey = (country, number, sk = 'COMPANY') => ({ pk: { S: 'COMPANY#' + country + '#' + number }, sk: { S: sk } });
// The body as sent, or as middy's JSON body parser left it when the floor loads it (floors.ts).
const bodyOf = (event) => (typeof event.body === 'string' ? JSON.parse(event.body) : event.body);
const projectionOf = (attributes) => ({
  ProjectionExpression: attributes.map((_, i) => '#p' + i).join(','),
  ExpressionAttributeNames: Object.fromEntries(attributes.map((a, i) => ['#p' + i, a])),
});
`;

/**
 * The company-data endpoints' floors: the item of the family the function reads (sort key), with the
 * attributes it projects (the store's own constant), so the floor moves the same bytes — one GetItem
 * for a single GET, one BatchGetItem per 100 companies for a bulk POST.
 */
const companyItemFloor = (sk: string, attributes: readonly string[] | null, bulk: boolean) => `${CLIENT}
const sk = ${JSON.stringify(sk)};
const projection = ${attributes ? `projectionOf(${JSON.stringify(attributes)})` : '{}'};
${
  bulk
    ? `const handle = async (event) => {
  const keys = bodyOf(event).companies.map((c) => companyKey(c.countryCode, c.companyNumber, sk));
  const parts = [];
  for (let i = 0; i < keys.length; i += 100) parts.push(keys.slice(i, i + 100));
  const pages = await Promise.all(
    parts.map((Keys) => client.send(new BatchGetItemCommand({ RequestItems: { [table]: { Keys, ...projection } } }))),
  );
  const items = pages.reduce((n, page) => n + page.Responses[table].length, 0);
  return { statusCode: 200, body: JSON.stringify({ items }) };
};`
    : `const handle = async (event) => {
  const { countryCode, companyNumber } = event.pathParameters;
  const out = await client.send(
    new GetItemCommand({ TableName: table, Key: companyKey(countryCode, companyNumber, sk), ...projection }),
  );
  return { statusCode: out.Item ? 200 : 404, body: JSON.stringify({ items: out.Item ? 1 : 0 }) };
};`
}
`;

/**
 * The lists' pages' floors (lib/lists/store/pages.ts `getOrderSlice`, `getContactSlice`): the same round trips
 * as the functions, in the same sequence, with the bare SDK — the list item by key (its counters and
 * type), then one Query of the order from the front (a state's partition in the table, every state's in
 * gsi1; for contacts only companies that have some), then one BatchGetItem of the page's companies. What
 * the floor computes between the calls is only what it needs to make the next one.
 */
const LISTS = `
const caller = (event) => event.requestContext.authorizer.accountId;
const getList = (account, id) =>
  client.send(new GetItemCommand({ TableName: table, Key: { pk: { S: 'ACCOUNT#' + account }, sk: { S: 'LIST#' + id } } }));
// view: a state (the table partition) or ALL (gsi1); until(items): whether enough has been read.
async function order(account, id, view, limit, contactsOnly, until) {
  const all = view === 'ALL';
  const items = [];
  let ExclusiveStartKey;
  do {
    const page = await client.send(
      new QueryCommand({
        TableName: table,
        ...(all ? { IndexName: 'gsi1' } : {}),
        KeyConditionExpression: '#pk = :pk',
        ExpressionAttributeNames: { '#pk': all ? 'gsi1pk' : 'pk', '#sk': 'sk', '#contacts': 'contacts', ...(contactsOnly && all ? { '#state': 'state' } : {}) },
        ExpressionAttributeValues: {
          ':pk': { S: 'ACCOUNT#' + account + '#LIST#' + id + '#' + view },
          ...(contactsOnly ? { ':zero': { N: '0' } } : {}),
          ...(contactsOnly && all ? { ':archived': { S: 'ARCHIVED' } } : {}),
        },
        ProjectionExpression: '#sk, #contacts',
        ...(contactsOnly ? { FilterExpression: all ? '#contacts > :zero AND #state <> :archived' : '#contacts > :zero' } : {}),
        Limit: limit,
        ExclusiveStartKey,
      }),
    );
    items.push(...page.Items);
    ExclusiveStartKey = page.LastEvaluatedKey;
  } while (ExclusiveStartKey && !until(items));
  return items;
}
const companyOfOrder = (item) => {
  const [, country, number] = item.sk.S.split('#');
  return companyKey(country, number);
};
async function companies(keys, attributes) {
  if (keys.length === 0) return [];
  const page = await client.send(new BatchGetItemCommand({ RequestItems: { [table]: { Keys: keys, ...projectionOf(attributes) } } }));
  return page.Responses[table];
}
const page = (event) => {
  const query = event.queryStringParameters || {};
  return { offset: Number(query.offset || 0), limit: Number(query.limit || 4) };
};
const count = (item, name) => Number(item[name] ? item[name].N : 0);
`;

/**
 * The updates endpoints' calls (lib/updates/updates.ts): the legal entity items by id (GetItem for one,
 * BatchGetItem for many), then the companies' feeds and relationships items, in parallel.
 */
const LEGAL_ENTITY_UPDATES = `${CLIENT}
const batchGet = async (keys) => {
  const parts = [];
  for (let i = 0; i < keys.length; i += 100) parts.push(keys.slice(i, i + 100));
  const pages = await Promise.all(parts.map((Keys) => client.send(new BatchGetItemCommand({ RequestItems: { [table]: { Keys } } }))));
  return pages.flatMap((page) => page.Responses[table]);
};
const handle = async (event) => {
  const ids = event.pathParameters
    ? [event.pathParameters.legalEntityId]
    : [...new Set(bodyOf(event).legalEntities.map((e) => e.legalEntityId))];
  const entityKey = (id) => ({ pk: { S: 'LEGAL_ENTITY#' + id }, sk: { S: 'LEGAL_ENTITY' } });
  const entities =
    ids.length === 1
      ? [(await client.send(new GetItemCommand({ TableName: table, Key: entityKey(ids[0]) }))).Item].filter(Boolean)
      : await batchGet(ids.map(entityKey));
  const companies = entities.map((e) => 'COMPANY#' + e.country.S + '#' + e.companyNumber.S);
  const [feeds, relationships] = await Promise.all([
    batchGet(companies.map((pk) => ({ pk: { S: pk }, sk: { S: 'UPDATES' } }))),
    batchGet(companies.map((pk) => ({ pk: { S: pk }, sk: { S: 'RELATIONSHIPS' } }))),
  ]);
  return { statusCode: 200, body: JSON.stringify({ feeds: feeds.length, relationships: relationships.length }) };
};
`;

/**
 * A name search's calls (lib/search/store.ts `findByWordPrefix`): one Query of the search index per
 * country, by the query's probe word, with its other words as the filter, the same projection and
 * bound. The floor's event names the probe and the other words (lib/search/search.ts `nameProbe`, as
 * the function finds them), so it computes only the keys.
 */
const SEARCH_INDEX = `${CLIENT}
const countries = ${JSON.stringify(COUNTRIES)};
const handle = async (event) => {
  const { probe, others } = event.queryStringParameters;
  if (!probe) return { statusCode: 200, body: JSON.stringify({ items: 0 }) };
  const values = { ':prefix': { S: probe } };
  const filter = (others ? others.split(' ') : []).map((word, i) => {
    values[':w' + i] = { S: word };
    values[':sw' + i] = { S: ' ' + word };
    return '(begins_with(#words, :w' + i + ') OR contains(#words, :sw' + i + '))';
  });
  const pages = await Promise.all(
    countries.map((country) =>
      client.send(
        new QueryCommand({
          TableName: table,
          KeyConditionExpression: '#pk = :pk AND begins_with(#sk, :prefix)',
          ...(filter.length > 0 ? { FilterExpression: filter.join(' AND ') } : {}),
          ExpressionAttributeNames: { '#pk': 'pk', '#sk': 'sk', '#name': 'name', '#place': 'place', '#words': 'words' },
          ExpressionAttributeValues: { ...values, ':pk': { S: 'SEARCH#' + country + '#' + probe.charAt(0) } },
          ProjectionExpression: '#pk, #sk, #name, #place, #words',
          Limit: ${MAX_ENTRIES},
        }),
      ),
    ),
  );
  return { statusCode: 200, body: JSON.stringify({ items: pages.reduce((n, page) => n + page.Items.length, 0) }) };
};
`;

/** One DynamoDB call a function made, as the SDK's low-level command took it (test/bench/cases.ts records them). */
export interface RecordedCall {
  command: string;
  input: unknown;
}

/**
 * The calls a function made for this very event (its body: \`{ calls }\`, recorded beforehand), sent again
 * one after another: for a function whose calls depend on more than a floor can compute (the match).
 */
const REPLAY = `${CLIENT}
const commands = { GetItemCommand, BatchGetItemCommand, QueryCommand };
const handle = async (event) => {
  let items = 0;
  for (const { command, input } of bodyOf(event).calls) {
    const out = await client.send(new commands[command](input));
    items += out.Items ? out.Items.length : out.Responses ? Object.values(out.Responses).flat().length : out.Item ? 1 : 0;
  }
  return { statusCode: 200, body: JSON.stringify({ items }) };
};
`;

/**
 * Floor handlers (`handle`): the same DynamoDB call(s) as the function, with the bare SDK and nothing
 * else. `floorSource` (floors.ts) makes the bundle's source of one, with the public packages its
 * function loads.
 */
export const FLOOR_SOURCES: Record<FloorKind, string> = {
  empty: `const handle = async () => ({ statusCode: 200, body: '{}' });\n`,
  getCompany: companyItemFloor('COMPANY', FINANCIALS_PROJECTION, false),
  batchGetCompanies: companyItemFloor('COMPANY', FINANCIALS_PROJECTION, true),
  // Details and contacts read the same company item with other attributes (details: the address,
  // activities and the figures kept for them; contacts: the contacts): their floors project what they project.
  getCompanyDetails: companyItemFloor('COMPANY', DETAILS_PROJECTION, false),
  batchGetCompanyDetails: companyItemFloor('COMPANY', DETAILS_PROJECTION, true),
  getCompanyContacts: companyItemFloor('COMPANY', CONTACTS_PROJECTION, false),
  searchIndex: SEARCH_INDEX,
  replay: REPLAY,
  getLookalikes: companyItemFloor('LOOKALIKES', LOOKALIKES_PROJECTION, false),
  batchGetLookalikes: companyItemFloor('LOOKALIKES', LOOKALIKES_PROJECTION, true),
  getRelationships: companyItemFloor('RELATIONSHIPS', null, false),
  batchGetRelationships: companyItemFloor('RELATIONSHIPS', null, true),
  legalEntityUpdates: LEGAL_ENTITY_UPDATES,
  // The overview (lib/lists/store/lists.ts getAccountLists): every list item of the account, all pages.
  accountLists: `${CLIENT}
const handle = async (event) => {
  const account = event.requestContext.authorizer.accountId;
  const items = [];
  let ExclusiveStartKey;
  do {
    const page = await client.send(
      new QueryCommand({
        TableName: table,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
        ExpressionAttributeValues: { ':pk': { S: 'ACCOUNT#' + account }, ':prefix': { S: 'LIST#' } },
        ExclusiveStartKey,
      }),
    );
    items.push(...page.Items);
    ExclusiveStartKey = page.LastEvaluatedKey;
  } while (ExclusiveStartKey);
  return { statusCode: 200, body: JSON.stringify({ items: items.length }) };
};
`,
  // A page at offset 0 (the bench's): the first offset + limit order items of every state (type ALL).
  listCompanies: `${CLIENT}${LISTS}
const handle = async (event) => {
  const account = caller(event);
  const id = event.pathParameters.id;
  const { offset, limit } = page(event);
  const list = await getList(account, id);
  if (!list.Item) return { statusCode: 404, body: '{}' };
  const total = count(list.Item, 'nNew') + count(list.Item, 'nSaved') + count(list.Item, 'nArchived');
  const end = Math.min(offset + limit, total);
  const members = end > offset ? (await order(account, id, 'ALL', end, false, (read) => read.length >= end)).slice(offset, end) : [];
  const items = await companies(members.map(companyOfOrder), ['pk', 'name', 'place']);
  return { statusCode: 200, body: JSON.stringify({ items: items.length }) };
};
`,
  // Contacts from offset 0: the order items with contacts until they cover offset + limit contacts.
  listContacts: `${CLIENT}${LISTS}
const handle = async (event) => {
  const account = caller(event);
  const id = event.pathParameters.id;
  const { offset, limit } = page(event);
  const list = await getList(account, id);
  if (!list.Item) return { statusCode: 404, body: '{}' };
  const end = Math.min(offset + limit, count(list.Item, 'nContacts'));
  const sum = (items) => items.reduce((n, item) => n + count(item, 'contacts'), 0);
  const view = list.Item.type.S === 'SMART' ? 'ALL' : 'SAVED';
  const read = end > offset ? await order(account, id, view, end, true, (items) => sum(items) >= end) : [];
  const covering = [];
  let seen = 0;
  for (const member of read) {
    if (seen >= end) break;
    if (seen + count(member, 'contacts') > offset) covering.push(member);
    seen += count(member, 'contacts');
  }
  const items = await companies(covering.map(companyOfOrder), ['pk', 'name', 'place', 'contacts']);
  return { statusCode: 200, body: JSON.stringify({ items: items.length }) };
};
`,
  // PUT /v1/lists/{id}/companies by number: one BatchGetItem of the companies (name, place, contacts),
  // then the members in conditional transactions of 49 (member, order item, the list's counters),
  // dropping a member whose condition says it is there already and trying the rest again.
  // A static list created as lib/lists/store/lists.ts creates one in an account whose list count exists:
  // the count read (consistently), then one transaction: the list, its name, its id's claim, the count
  // moved (conditional puts, a bounded ADD). The same two calls, with the same items, made bare.
  createStaticList: `${CLIENT}
const { randomInt } = require('node:crypto');
const handle = async (event) => {
  const account = event.requestContext.authorizer.accountId;
  const { name, type } = bodyOf(event);
  const countKey = { pk: { S: 'ACCOUNT#' + account }, sk: { S: 'LIST_COUNT' } };
  const count = await client.send(new GetItemCommand({ TableName: table, Key: countKey, ConsistentRead: true }));
  if (!count.Item) return { statusCode: 500, body: '{"message":"no list count"}' };
  const id = randomInt(${DRAWN_LIST_IDS.min}, ${DRAWN_LIST_IDS.max + 1});
  const now = new Date().toISOString();
  const put = (Item) => ({ Put: { TableName: table, Item, ConditionExpression: 'attribute_not_exists(pk)' } });
  await client.send(
    new TransactWriteItemsCommand({
      TransactItems: [
        put({
          pk: { S: 'ACCOUNT#' + account }, sk: { S: 'LIST#' + id }, entity: { S: 'List' }, accountId: { S: account },
          id: { N: String(id) }, name: { S: name }, type: { S: type },
          columns: { L: ${JSON.stringify(DEFAULT_COLUMNS)}.map((c) => ({ S: c })) },
          shared: { BOOL: false }, notificationsEnabled: { BOOL: false },
          createdBy: { S: event.requestContext.authorizer.userEmail }, createdAt: { S: now }, updatedAt: { S: now },
          nNew: { N: '0' }, nSaved: { N: '0' }, nArchived: { N: '0' }, nContacts: { N: '0' },
        }),
        put({ pk: { S: 'ACCOUNT#' + account }, sk: { S: 'LISTNAME#' + name.trim().toLowerCase() }, entity: { S: 'ListName' }, listId: { N: String(id) } }),
        put({ pk: { S: 'LIST_ID#' + id }, sk: { S: 'LIST_ID' }, entity: { S: 'ListIdClaim' } }),
        {
          Update: {
            TableName: table, Key: countKey, UpdateExpression: 'ADD #n :one', ConditionExpression: '#n < :max',
            ExpressionAttributeNames: { '#n': '${LIST_COUNT_ATTRIBUTE}' },
            ExpressionAttributeValues: { ':one': { N: '1' }, ':max': { N: '${MAX_LISTS_PER_ACCOUNT}' } },
          },
        },
      ],
    }),
  );
  return { statusCode: 201, body: JSON.stringify({ id }) };
};
`,
  addListMembers: `${CLIENT}
const handle = async (event) => {
  const account = event.requestContext.authorizer.accountId;
  const me = event.requestContext.authorizer.userEmail;
  const listId = event.pathParameters.id;
  const keys = bodyOf(event).companies.map((c) => companyKey(c.country, c.companyNumber));
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
const handle = async (event) => {
  const token = event.authorizationToken.replace(/^Bearer /, '');
  const hash = createHash('sha256').update(token).digest('hex');
  const out = await client.send(new GetItemCommand({ TableName: table, Key: { pk: { S: 'TOKEN#' + hash }, sk: { S: 'TOKEN' } } }));
  return { statusCode: out.Item ? 200 : 401, body: '{}' };
};
`,
};
