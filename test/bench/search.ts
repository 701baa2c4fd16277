/**
 * `npm run bench:search`: company search (contract §6.5) at scale, warm, in process: the search index of
 * N demo companies (100,000 by default) written by the import's own derivation (lib/search/derive.ts,
 * BatchWriteItem as the import sends it; the rest of the import is not needed for a name search), then
 * the same searches timed twice, warm, the way a user types (the first word of a demo name and the first
 * two letters of the next, over all three countries):
 * - in process: the search function's handler called directly (what the function itself costs);
 * - over HTTP, as a user pays it: the local gateway of `npm start` (infra/local/gateway.ts: routing,
 *   the real TOKEN authorizer with its 4-second cache, the account's plan enforced, the same handler
 *   module) listening on a free port, called with `fetch` and a demo token, one search at a time,
 *   PACE_PER_SECOND a second (under the standard plan's 25 a second, as a person typing stays), each
 *   timed from the request sent to the last byte of the answer read.
 * Prints p50/p95/p99 of each, how many answers were empty and the most DynamoDB requests one search
 * made. Figures only: a loaded machine gives larger times.
 *
 *   npm run bench:search [-- --companies 100000 --queries 300]
 */
import { randomUUID } from 'node:crypto';
import type http from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import type { APIGatewayProxyEvent, Context } from 'aws-lambda';
import { proxyEvent } from '../support/events';
import { demoRecords } from '../fixtures/demo-data/companies';
import { benchDynamoDb } from './local-dynamodb';

/** Searches a second over HTTP: a person typing, and under the standard plan's rate (25, contract §13). */
const PACE_PER_SECOND = 20;

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { companies: { type: 'string' }, queries: { type: 'string' } } });
  const companies = Number(values.companies ?? 100_000);
  const queries = Number(values.queries ?? 300);
  Object.assign(process.env, {
    AWS_REGION: process.env['AWS_REGION'] ?? 'local',
    AWS_ACCESS_KEY_ID: process.env['AWS_ACCESS_KEY_ID'] ?? 'local',
    AWS_SECRET_ACCESS_KEY: process.env['AWS_SECRET_ACCESS_KEY'] ?? 'local',
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    TABLE_NAME: `search-bench-${randomUUID().slice(0, 8)}`,
  });
  const { ensureTable, localClient } = await import('../../infra/local/dynamodb');
  const { endpoint, shared, stop } = await benchDynamoDb({ log: console.error });
  await ensureTable(endpoint, process.env['TABLE_NAME']!);
  try {
    const { parseCompanyRecord } = await import('../../lib/companies/record');
    const { deriveSearchIndex } = await import('../../lib/search/derive');
    const { batchPut } = await import('../../lib/storage/batch');
    const { routes } = await import('../../lib/routes');
    const { handler } = await import('../../functions/search-companies');
    const { dynamodb } = await import('../../lib/storage/client');
    // Index entries each Query read (ScannedCount) and sent back (Count): what a search costs DynamoDB
    // and what this process parses, whatever the machine's load.
    const entries = { queries: 0, read: 0, sent: 0, maxRead: 0 };
    dynamodb().middlewareStack.add(
      (next, context) => async (args) => {
        const result = await next(args);
        if (context.commandName === 'QueryCommand') {
          const { Count = 0, ScannedCount = 0 } = result.output as { Count?: number; ScannedCount?: number };
          entries.queries++;
          entries.read += ScannedCount;
          entries.sent += Count;
          entries.maxRead = Math.max(entries.maxRead, ScannedCount);
        }
        return result;
      },
      { step: 'initialize', name: 'searchBenchEntries' },
    );

    let written = 0;
    let batch: Parameters<typeof deriveSearchIndex>[0] = [];
    const names: string[] = [];
    const started = performance.now();
    const flush = async () => {
      const { writes } = await deriveSearchIndex(batch);
      await batchPut(process.env['TABLE_NAME']!, writes!.puts);
      written += writes!.puts.length;
      batch = [];
    };
    for (const record of demoRecords({ companies })) {
      const parsed = parseCompanyRecord(record);
      if (!parsed.ok) throw new Error(parsed.reason);
      batch.push({ before: null, after: parsed.record, asOf: '2026-11-21', changeId: 'bench' });
      names.push(record.name);
      if (batch.length === 1000) await flush();
    }
    await flush();
    console.error(
      `indexed ${companies} companies: ${written} index items (${(written / companies).toFixed(2)} a company) in ${((performance.now() - started) / 1000).toFixed(0)} s`,
    );

    // What a user types: a name's first word and the start of the next, from every part of the data.
    const events: APIGatewayProxyEvent[] = [];
    for (let i = 0; i < queries; i++) {
      const [first = '', second = ''] = names[Math.floor((i * names.length) / queries)]!.split(' ');
      const q = `${first} ${second.replace(/[^\p{L}]/gu, '').slice(0, 2)}`.trim();
      events.push(proxyEvent({ method: 'GET', resource: routes.searchCompanies.path, query: { q } }));
    }
    const context = { awsRequestId: 'bench', getRemainingTimeInMillis: () => 10_000 } as unknown as Context;
    // The handler logs one line a request, with its DynamoDB calls: counted here instead of printed.
    const calls: number[] = [];
    const print = console.log;
    // (The gateway's scheduled list clean-up logs its own lines, read and dropped the same way.)
    console.log = (line: unknown) => {
      const parsed = parseJson(line) as { message?: string; dynamodb?: { calls: number } } | null;
      if (parsed?.message === 'request' && parsed.dynamodb) calls.push(parsed.dynamodb.calls);
    };
    let empty = 0;
    Object.assign(entries, { queries: 0, read: 0, sent: 0, maxRead: 0 });
    const inProcess = await timed(events, async (event) => {
      const answer = await handler(event, context);
      if (answer.statusCode !== 200) throw new Error(`search answered ${answer.statusCode}: ${answer.body}`);
      if (answer.body === '[]') empty++;
    });

    // The same searches through the local stage's gateway, with a demo token the authorizer checks.
    const { createDemoTokens, DEMO_TOKENS } = await import('../../infra/local/demo');
    const { createGateway } = await import('../../infra/local/gateway');
    await createDemoTokens();
    const server = createGateway();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const headers = { authorization: `Bearer ${DEMO_TOKENS[0].token}` };
    let httpEmpty = 0;
    let overHttp: Times;
    try {
      overHttp = await timed(
        events,
        async (event) => {
          const url = `${base}${routes.searchCompanies.path}?q=${encodeURIComponent(event.queryStringParameters!['q']!)}`;
          const answer = await fetch(url, { headers });
          const body = await answer.text();
          if (answer.status !== 200) throw new Error(`search answered ${answer.status}: ${body}`);
          if (body === '[]') httpEmpty++;
        },
        1000 / PACE_PER_SECOND,
      );
    } finally {
      await closeServer(server);
    }
    console.log = print;
    const searches = `search over ${companies} companies, ${queries} warm calls (3 Queries each, one per country)`;
    console.log(
      `${searches}, handler in process: ${inProcess.summary}; ${empty} empty answers; ` +
        `DynamoDB requests per search: at most ${Math.max(...calls)}; index entries a Query read ` +
        `${(entries.read / entries.queries).toFixed(0)} on average (at most ${entries.maxRead}) and sent back ` +
        `${(entries.sent / entries.queries).toFixed(1)}`,
    );
    console.log(
      `${searches}, over HTTP through the local gateway (demo token, authorizer and plan as \`npm start\`, ` +
        `${PACE_PER_SECOND} a second): ${overHttp.summary}; ${httpEmpty} empty answers`,
    );
  } finally {
    if (shared) {
      const { DeleteTableCommand } = await import('@aws-sdk/client-dynamodb');
      await localClient(endpoint).send(new DeleteTableCommand({ TableName: process.env['TABLE_NAME'] }));
    }
    stop();
  }
}

interface Times {
  summary: string;
}

/**
 * Runs `call` on each event after 30 warm-up calls (the first events again) and gives the wall time per
 * call as p50/p95/p99. With `everyMs`, a call starts no sooner than `everyMs` after the one before.
 */
async function timed(
  events: APIGatewayProxyEvent[],
  call: (event: APIGatewayProxyEvent) => Promise<void>,
  everyMs = 0,
): Promise<Times> {
  const times: number[] = [];
  for (const [i, event] of [...events.slice(0, 30), ...events].entries()) {
    const t0 = performance.now();
    await call(event);
    const ms = performance.now() - t0;
    if (i >= 30) times.push(ms);
    if (everyMs > ms) await sleep(everyMs - ms);
  }
  times.sort((a, b) => a - b);
  const at = (p: number) => times[Math.min(times.length - 1, Math.ceil(p * times.length) - 1)]!.toFixed(1);
  return { summary: `p50 ${at(0.5)} ms, p95 ${at(0.95)} ms, p99 ${at(0.99)} ms` };
}

function parseJson(line: unknown): unknown {
  try {
    return JSON.parse(String(line));
  } catch {
    return null;
  }
}

function closeServer(server: http.Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
