/**
 * `npm run bench:events`: what deriving events (contract §12) adds to an import, and how soon a
 * delivery leaves after the import batch that derived it. On its own DynamoDB Local table.
 *
 * **Overhead** (§12 budget: ≤ 10 % on an import of 10,000 changed companies with 50 watched lists):
 * N companies imported, every one put in one of 50 notification-enabled static lists (10 accounts × 5),
 * then rounds of two imports of a new period for every company — the import before notifications
 * (its batch derivations without the events one) and the import as it is — in alternating order (AB,
 * BA, …), so that the machine's load and the records' growth weigh on both alike. Per run: DynamoDB
 * requests and write units per changed company (counts: the load does not change them), the wall
 * time, this process's CPU and DynamoDB Local's own CPU (its Java process, from /proc). Per round the
 * ratio with/without of the wall time and of the CPU of both processes; the verdict is on the median
 * ratio, printed with its range. One more run, before the lists exist, counts what an import with no
 * watched list pays.
 *
 * **Latency** (§12: "a delivery leaves within 5 s of the import batch that derived it on the local
 * stage", p95): the local stage's scheduled workers running as `npm start` runs them (fan-out and
 * delivery every 250 ms), a webhook endpoint of one more account on a receiver on 127.0.0.1, and an
 * import of a new period for M companies in its watched list: per event, the time from its batch's
 * write (the transaction that numbered it) to its arrival at the receiver. p50, p95 and max.
 *
 *   npm run bench:events                                    10,000 companies, 5 rounds, 1,000 events
 *   npm run bench:events -- --companies 2000 --rounds 3 --events 500
 */

import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import { spawn } from 'node:child_process';
import { parseArgs } from 'node:util';
import type { CompanyChange } from '../../lib/derivation/change';
import { benchDynamoDb, dynamoDbLocalCpuMs } from './local-dynamodb';
import { median, percentile } from './statistics';

const BUDGET = 1.1;
const LATENCY_P95_MS = 5000;

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      companies: { type: 'string', default: '10000' },
      rounds: { type: 'string', default: '5' },
      events: { type: 'string', default: '1000' },
    },
  });
  const n = Number(values.companies);
  const rounds = Number(values.rounds);
  const latencyEvents = Number(values.events);
  if (!Number.isInteger(n) || n < 50) throw new Error('--companies takes an integer of at least 50');
  if (!Number.isInteger(rounds) || rounds < 1) throw new Error('--rounds takes a positive integer');
  if (!Number.isInteger(latencyEvents) || latencyEvents < 1 || latencyEvents > n)
    throw new Error('--events takes an integer from 1 to --companies');
  process.env['AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED'] = 'true';
  const { endpoint, stop } = await benchDynamoDb({ log: console.error });
  process.env['DYNAMODB_ENDPOINT'] = endpoint;
  process.env['TABLE_NAME'] = `events-bench-${Date.now()}`;
  // DynamoDB Local's CPU seconds so far (0 when it is not a process of this machine).
  const javaCpu = () => dynamoDbLocalCpuMs(endpoint) / 1000;
  if (javaCpu() === 0)
    console.error(`DynamoDB Local's process at ${endpoint} not found: its CPU counts as 0`);
  try {
    const { ensureTable } = await import('../../infra/local/dynamodb');
    await ensureTable(endpoint, process.env['TABLE_NAME']);
    const { importCompanies } = await import('../../lib/import/import');
    const { recordCalls } = await import('../support/dynamodb-calls');
    const { bareCompany, period } = await import('../support/records');
    const { createList } = await import('../../lib/lists/store/lists');
    const { addMembers } = await import('../../lib/lists/store/members');
    const { capacitySoFar, countWrites } = await import('../../lib/storage/write-counts');
    const { deriveHoldings } = await import('../../lib/legal-entities/holdings');
    const { deriveLookalikes } = await import('../../lib/lookalikes/recompute');
    const { deriveSearchIndex } = await import('../../lib/search/derive');
    // Write units are what this bench weighs (both runs ask alike): DynamoDB Local is asked for them.
    countWrites({ askCapacity: true });
    const writeUnits = () => capacitySoFar()?.write ?? 0;

    const base = Array.from({ length: n }, (_, i) =>
      bareCompany(60_000_000 + i, { name: `Bench ${i} BV`, financials: [period(2000)] }),
    );
    let year = 2000;
    /** Every company (or the first `count`) with one more period: one change and one update each. */
    const nextVersion = (count = n) => {
      year++;
      const years = Array.from({ length: year - 1999 }, (_, i) => 2000 + i);
      return base.slice(0, count).map((r) => ({ ...r, financials: years.map((y) => period(y)) }));
    };
    // The batch derivations without the events one: the import before notifications.
    const withoutEvents = async (changes: CompanyChange[]) => {
      const parts = [
        await deriveHoldings(changes),
        await deriveLookalikes(changes),
        await deriveSearchIndex(changes),
      ];
      return {
        updates: parts.reduce((sum, p) => sum + p.updates, 0),
        writes: {
          puts: parts.flatMap((p) => p.writes?.puts ?? []),
          deletes: parts.flatMap((p) => p.writes?.deletes ?? []),
        },
      };
    };
    const run = async (label: string, records: typeof base, events = true) => {
      async function* lines() {
        for (const record of records) yield JSON.stringify(record);
      }
      const cpu = process.cpuUsage();
      const java = javaCpu();
      const units = writeUnits();
      const started = performance.now();
      const { result, calls } = await recordCalls(() =>
        importCompanies(lines(), { asOf: '2026-11-25', ...(events ? {} : { deriveBatch: withoutEvents }) }),
      );
      const seconds = (performance.now() - started) / 1000;
      const used = process.cpuUsage(cpu);
      const figures = {
        changed: result.created + result.changed,
        requests: calls.length,
        writeUnits: writeUnits() - units,
        seconds,
        cpuSeconds: (used.user + used.system) / 1e6 + (javaCpu() - java),
        javaSeconds: javaCpu() - java,
      };
      const per = (count: number) => (count / figures.changed).toFixed(3);
      const byCommand = new Map<string, number>();
      for (const call of calls) byCommand.set(call.command, (byCommand.get(call.command) ?? 0) + 1);
      console.log(
        `${label}: ${figures.changed} changed, ${per(figures.requests)} requests ` +
          `(${[...byCommand].map(([command, count]) => `${command} ${per(count)}`).join(', ')}) and ` +
          `${per(figures.writeUnits)} write units per changed company; ${seconds.toFixed(1)} s wall, ` +
          `CPU ${figures.cpuSeconds.toFixed(1)} s (DynamoDB Local ${figures.javaSeconds.toFixed(1)} s)`,
      );
      return figures;
    };

    await run('first import (setup)', base);
    await run('a new period, no watched list', nextVersion());
    const accounts = Array.from({ length: 10 }, (_, i) => `bench-account-${i}`);
    const perList = Math.ceil(n / 50);
    for (let l = 0; l < 50; l++) {
      const accountId = accounts[l % accounts.length]!;
      const list = await createList(listDraft(accountId, `Watched ${l}`));
      await addAll(addMembers, accountId, list.id, base.slice(l * perList, (l + 1) * perList));
    }

    const ratios: Array<{ wall: number; cpu: number }> = [];
    const counts = { without: { r: 0, w: 0, c: 0 }, with: { r: 0, w: 0, c: 0 } };
    for (let round = 0; round < rounds; round++) {
      const order = round % 2 === 0 ? (['without', 'with'] as const) : (['with', 'without'] as const);
      const figures: Record<string, Awaited<ReturnType<typeof run>>> = {};
      for (const variant of order) {
        const label = `round ${round + 1}, ${variant === 'with' ? 'with events, 50 watched lists' : 'before events'}`;
        const f = await run(label, nextVersion(), variant === 'with');
        figures[variant] = f;
        counts[variant].r += f.requests;
        counts[variant].w += f.writeUnits;
        counts[variant].c += f.changed;
      }
      ratios.push({
        wall: figures['with']!.seconds / figures['without']!.seconds,
        cpu: figures['with']!.cpuSeconds / figures['without']!.cpuSeconds,
      });
    }
    const describe = (values: number[]) =>
      `median ${pct(median(values))} (range ${pct(Math.min(...values))} to ${pct(Math.max(...values))})`;
    const wall = ratios.map((r) => r.wall);
    const cpu = ratios.map((r) => r.cpu);
    console.log(
      `\nper changed company, before → with events: requests ${(counts.without.r / counts.without.c).toFixed(3)} → ` +
        `${(counts.with.r / counts.with.c).toFixed(3)}, write units ${(counts.without.w / counts.without.c).toFixed(3)} → ` +
        `${(counts.with.w / counts.with.c).toFixed(3)}`,
    );
    console.log(`wall time with events, ${rounds} paired rounds: ${describe(wall)}`);
    console.log(`CPU (this process + DynamoDB Local) with events: ${describe(cpu)}`);
    const ok = median(wall) <= BUDGET && median(cpu) <= BUDGET;
    console.log(
      `overhead verdict (median ≤ +10 %): ${ok ? 'PASS' : 'OVER'} (a loaded machine widens the range, not the median much)`,
    );

    await latency(latencyEvents, nextVersion(latencyEvents), base, { addMembers, createList });
  } finally {
    stop();
  }
}

/** The latency part (see the module comment). */
async function latency(
  count: number,
  records: ReturnType<typeof import('../support/records').companyRecord>[],
  base: ReturnType<typeof import('../support/records').companyRecord>[],
  lib: {
    addMembers: typeof import('../../lib/lists/store/members').addMembers;
    createList: typeof import('../../lib/lists/store/lists').createList;
  },
): Promise<void> {
  const { createWebhook } = await import('../../lib/webhooks/webhooks');
  const { readEvents } = await import('../../lib/events/store');
  const { runScheduledWorkers } = await import('../../infra/local/scheduled-workers');
  const arrivals = new Map<string, number>();
  const receiver = http.createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      const id = String(request.headers['webhook-id']);
      if (!arrivals.has(id)) arrivals.set(id, Date.now());
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const workersHost = http.createServer();
  let workers: { stopped: () => Promise<void> } | undefined;
  try {
    const accountId = 'bench-latency';
    const caller = { accountId, userEmail: 'bench@bench.example', scopes: [] };
    const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
    const { body: endpoint } = await createWebhook(
      caller,
      { url },
      { allowLocal: true, resolve: async () => ['127.0.0.1'] },
    );
    const list = await lib.createList(listDraft(accountId, 'Latency'));
    await addAll(lib.addMembers, accountId, list.id, base.slice(0, count));
    workers = runScheduledWorkers(workersHost);
    // The import in a process of its own, as `npm run import` beside `npm start`.
    await importInChild(records);
    const { events } = await readEvents(accountId, 0, 10_000, Date.now());
    const deadline = Date.now() + 120_000;
    while (arrivals.size < events.length && Date.now() < deadline) await sleep(100);
    const delays = events.flatMap((e) => {
      const at = arrivals.get(e.id);
      return at === undefined ? [] : [at - e.createdAtMs];
    });
    // Split: from the write to the attempt's start (fan-out and queue, each polled every 250 ms),
    // and the attempt itself (signing, the request, the receiver).
    const { getDeliveries } = await import('../../lib/webhooks/deliveries');
    const attempts = await getDeliveries(accountId, endpoint.id, { limit: 10_000, offset: 0 });
    const started = new Map(attempts.data.map((a) => [a.eventId, Date.parse(a.at)]));
    const toAttempt = events.flatMap((e) => (started.has(e.id) ? [started.get(e.id)! - e.createdAtMs] : []));
    const s = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
    console.log(
      `\nwrite → attempt started: p50 ${s(percentile(toAttempt, 50))}, p95 ${s(percentile(toAttempt, 95))}`,
    );
    console.log(
      `latency, batch written → receiver (the local stage's workers, every 250 ms; load ${os.loadavg()[0]!.toFixed(1)}): ` +
        `${delays.length} of ${events.length} events arrived; p50 ${s(percentile(delays, 50))}, ` +
        `p95 ${s(percentile(delays, 95))}, max ${s(Math.max(...delays))}; ` +
        `verdict (p95 ≤ 5 s, all arrived): ${delays.length === events.length && percentile(delays, 95) <= LATENCY_P95_MS ? 'PASS' : 'OVER'}`,
    );
  } finally {
    workersHost.emit('close');
    await workers?.stopped();
    receiver.closeAllConnections();
    receiver.close();
  }
}

/** `npm run import -- -` on this table, the records on its standard input. */
function importInChild(records: unknown[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn('npx', ['tsx', 'infra/cli/import.ts', '-', '--as-of', '2026-11-25'], {
      env: process.env,
      stdio: ['pipe', 'ignore', 'inherit'],
    });
    child.on('error', reject);
    child.on('exit', (code) =>
      code === 0 ? resolve() : reject(new Error(`the import exited with ${code}`)),
    );
    child.stdin.end(records.map((r) => JSON.stringify(r)).join('\n') + '\n');
  });
}

function listDraft(accountId: string, name: string) {
  return {
    accountId,
    name,
    type: 'STATIC' as const,
    columns: [],
    shared: true,
    notificationsEnabled: true,
    createdBy: 'bench@bench.example',
    createdAt: new Date().toISOString(),
    filters: null,
  };
}

async function addAll(
  addMembers: typeof import('../../lib/lists/store/members').addMembers,
  accountId: string,
  listId: number,
  members: Array<{ companyNumber: string }>,
): Promise<void> {
  for (let i = 0; i < members.length; i += 100) {
    await addMembers(
      accountId,
      listId,
      members
        .slice(i, i + 100)
        .map((r) => ({ ref: { country: 'NL' as const, companyNumber: r.companyNumber }, contacts: 0 })),
      { state: 'SAVED', now: new Date() },
    );
  }
}

const pct = (ratio: number) => `${ratio >= 1 ? '+' : ''}${((ratio - 1) * 100).toFixed(1)} %`;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
