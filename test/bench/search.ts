/**
 * `npm run bench:search`: company search (contract §6.5) at scale, warm, in process: the search index of
 * N demo companies (100,000 by default) written by the import's own derivation (lib/search/derive.ts,
 * BatchWriteItem as the import sends it; the rest of the import is not needed for a name search), then
 * the search function's handler called the way a user types: the first word of a demo name and the
 * first two letters of the next, over all three countries. Prints p50/p95/p99 of the handler's wall
 * time per call, how many answers were empty and the most DynamoDB requests one search made. Figures only: a loaded machine gives larger times.
 *
 *   npm run bench:search [-- --companies 100000 --queries 300]
 */
import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import type { APIGatewayProxyEvent, Context } from 'aws-lambda';
import { proxyEvent } from '../support/events';
import { demoRecords } from '../fixtures/demo-data/companies';
import { benchDynamoDb } from './local-dynamodb';

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
    console.log = (line: string) =>
      calls.push((JSON.parse(line) as { dynamodb: { calls: number } }).dynamodb.calls);
    for (const event of events.slice(0, 30)) await handler(event, context);
    const times: number[] = [];
    let empty = 0;
    for (const event of events) {
      const t0 = performance.now();
      const answer = await handler(event, context);
      times.push(performance.now() - t0);
      if (answer.statusCode !== 200) throw new Error(`search answered ${answer.statusCode}: ${answer.body}`);
      if (answer.body === '[]') empty++;
    }
    console.log = print;
    times.sort((a, b) => a - b);
    const at = (p: number) => times[Math.min(times.length - 1, Math.ceil(p * times.length) - 1)]!.toFixed(1);
    console.log(
      `search over ${companies} companies, ${queries} warm calls (3 Queries each, one per country): ` +
        `p50 ${at(0.5)} ms, p95 ${at(0.95)} ms, p99 ${at(0.99)} ms; ${empty} empty answers; ` +
        `DynamoDB requests per search: at most ${Math.max(...calls)}`,
    );
  } finally {
    if (shared) {
      const { DeleteTableCommand } = await import('@aws-sdk/client-dynamodb');
      await localClient(endpoint).send(new DeleteTableCommand({ TableName: process.env['TABLE_NAME'] }));
    }
    stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
