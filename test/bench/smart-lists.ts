/**
 * `npm run bench:smart-lists`: what smart lists cost (contract §7.6, issue 10's budgets).
 *
 * 1. Creating a smart list that matches about 5,000 of 30,000 demo companies: `POST /v1/lists` (the
 *    function's handler, in process) over the filter profiles of 30,000 demo companies, written as the
 *    import's derivation writes them (`filterProfileItem`; importing 30,000 whole companies here would
 *    take minutes and the evaluation reads nothing else). Three creates, each timed.
 * 2. An import of 1,000 changed companies with 200 smart lists defined (a realistic mix of criteria,
 *    ranges cut at quantiles of the data), against the same import with none: two fresh tables, each
 *    given the same 1,000 demo companies first, then the same changed file, timed; runs alternate
 *    between the tables. Two kinds of change: the demo's own between its two snapshots (new accounts
 *    filed, people left: figures and contact counts change), and the worst case for flips (every
 *    company moves to another place, every third one also to another activity). Besides the times
 *    (which depend on the machine's load), what the lists add in writes, which does not: items,
 *    write requests and write units of a run with the lists minus one without, per flip. Write units
 *    as DynamoDB bills them for items up to 1 KB: one an item, two in a transaction (DynamoDB Local's
 *    own figure does not double transactions). Also DynamoDB Local's own CPU seconds per run (read
 *    from /proc, when the bench started it): on this machine it is the resource the import waits for.
 *    Then one more run of each table, its completion called step by step, prints each step's requests
 *    and items read and written (and DynamoDB Local's CPU): what a flip and a contact-count change cost.
 *
 * Figures only; it exits 0 whatever they are. DynamoDB Local is started unless DYNAMODB_ENDPOINT is set.
 * The data it runs on (the create's filter, the changed companies, the lists' filters) is built in
 * smart-list-data.ts, its read and write counts in storage-counts.ts, what it prints in smart-list-report.ts.
 */
import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import { benchDynamoDb, dynamoDbLocalCpuMs } from './local-dynamodb';
import type { CreateFigures, ScenarioResult } from './smart-list-report';
import type { Written } from './storage-counts';

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      companies: { type: 'string' },
      changed: { type: 'string' },
      lists: { type: 'string' },
      only: { type: 'string' },
    },
  });
  const total = Number(values.companies ?? 30_000);
  const changedCount = Number(values.changed ?? 1000);
  const listCount = Number(values.lists ?? 200);
  process.env['AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED'] = 'true';
  const { ensureTable } = await import('../../infra/local/dynamodb');
  const { endpoint, shared, stop } = await benchDynamoDb({ log: console.error });
  // DynamoDB Local's CPU seconds so far; NaN on a shared endpoint (other work's CPU would count).
  const javaCpu = shared ? () => NaN : () => dynamoDbLocalCpuMs(endpoint) / 1000;
  try {
    const newTable = async () => {
      const name = `smart-bench-${randomUUID()}`;
      await ensureTable(endpoint, name);
      process.env['TABLE_NAME'] = name;
      return name;
    };
    const { generateDemoData } = await import('../fixtures/demo-data/companies');
    const { parseCompanyRecord } = await import('../../lib/companies/record');
    const { filterProfileOf, packProfile } = await import('../../lib/lists/filters');
    const { filterProfileItem } = await import('../../lib/lists/store/profiles');
    const { batchPut } = await import('../../lib/storage/batch');
    const { tableName } = await import('../../lib/storage/client');
    const { handler: createList } = await import('../../functions/create-list');
    const { proxyEvent, lambdaContext } = await import('../support/events');
    const { changeScenarios, closestFilter, randomListFilters } = await import('./smart-list-data');
    const { printSmartListFigures } = await import('./smart-list-report');
    const { middleMedian: median } = await import('./statistics');
    const { countReads, written } = await import('./storage-counts');

    // ---- 1. Creating a smart list over 30,000 companies (`--only import` skips it).
    const creating = values.only !== 'import';
    console.error(`generating ${creating ? total : 0} demo companies`);
    const records = generateDemoData({ companies: creating ? total : 0 }).map((input) => {
      const parsed = parseCompanyRecord(input);
      if (!parsed.ok) throw new Error(parsed.reason);
      return parsed.record;
    });
    await newTable();
    console.error('writing their filter profiles');
    await batchPut(
      tableName(),
      records.map((r) => filterProfileItem(r, packProfile(filterProfileOf(r)), r.contacts.length)),
    );
    const best = closestFilter(records.map(filterProfileOf), 5000);
    const creates: number[] = [];
    let amount = 0;
    for (let i = 0; i < (creating ? 4 : 0); i++) {
      const event = proxyEvent({
        method: 'POST',
        resource: '/v1/lists',
        body: { name: `Bench smart list ${i}`, type: 'SMART', filters: best!.filters },
      });
      const started = performance.now();
      const response = await createList(event, lambdaContext);
      const ms = performance.now() - started;
      if (response.statusCode !== 201)
        throw new Error(`create answered ${response.statusCode}: ${response.body}`);
      amount = (JSON.parse(response.body) as { amountOfCompanies: number }).amountOfCompanies;
      // The first warms DynamoDB Local's JIT and the handler; it is not counted.
      if (i > 0) creates.push(ms);
    }
    const createMedian = creating ? median(creates) : NaN;

    // ---- 2. An import of changed companies with and without smart lists, for two kinds of change.
    const { importCompanies } = await import('../../lib/import/import');
    const { createOneList } = await import('../../lib/lists/manage');
    const { SCOPES } = await import('../../lib/tokens/scopes');
    const { current, places, codes, scenarios } = changeScenarios(changedCount);
    const { completeImport } = await import('../../lib/import/derive');
    const { getSmartListFlips } = await import('../../lib/lists/store/smart-flips');
    let completionMs = 0;
    let flips = 0;
    const { applySmartListFlips, forgetSmartLists } = await import('../../lib/lists/smart');
    const { applyContactChanges } = await import('../../lib/lists/derive');
    const { recomputeMarked } = await import('../../lib/lookalikes/recompute');
    const { countWrites } = await import('../../lib/storage/write-counts');
    countWrites({ askCapacity: false });
    let writes = written();
    const reads = countReads((await import('../../lib/storage/client')).dynamodb());
    const run = async (records: readonly object[]) => {
      const cpuBefore = javaCpu();
      // The import files the smart lists for 2 s; this process switches tables between runs.
      forgetSmartLists();
      async function* lines() {
        for (const record of records) yield JSON.stringify(record);
      }
      const started = performance.now();
      completionMs = 0;
      const summary = await importCompanies(lines(), {
        asOf: '2026-11-21',
        complete: async () => {
          flips = (await getSmartListFlips()).length;
          const begun = performance.now();
          await completeImport();
          completionMs = performance.now() - begun;
        },
      });
      if (summary.rejected > 0) throw new Error('rejected lines');
      const before = writes;
      writes = written();
      const spent = {
        items: writes.items - before.items,
        requests: writes.requests - before.requests,
        units: writes.units - before.units,
      };
      return { ms: performance.now() - started, summary, spent, cpu: javaCpu() - cpuBefore };
    };
    const listFilters = randomListFilters(current, places, codes, listCount);

    const results: ScenarioResult[] = [];
    for (const scenario of scenarios) {
      console.error(`scenario: ${scenario.name}`);
      const tables = { without: await newTable(), with: await newTable() };
      for (const [kind, table] of Object.entries(tables)) {
        process.env['TABLE_NAME'] = table;
        console.error(`  ${kind} smart lists: importing ${changedCount} companies`);
        await run(scenario.from);
        if (kind === 'with') {
          console.error(`  creating ${listCount} smart lists`);
          const caller = { accountId: 'acme', userEmail: 'alice@acme.example', scopes: [...SCOPES] };
          for (const [i, filters] of listFilters.entries()) {
            await createOneList(caller, { name: `Smart ${i}`, type: 'SMART', filters: filters as never });
          }
        }
      }
      // Changed, then back: every run changes every company. Alternating tables, so load hits both alike.
      const times: Record<keyof typeof tables, number[]> = { without: [], with: [] };
      const spent: Record<keyof typeof tables, Written[]> = {
        without: [],
        with: [],
      };
      const flipCounts: number[] = [];
      const completions: number[] = [];
      const cpu: Record<keyof typeof tables, number[]> = { without: [], with: [] };
      for (let round = 0; round < 4; round++) {
        for (const kind of (round % 2 === 0
          ? ['without', 'with']
          : ['with', 'without']) as (keyof typeof tables)[]) {
          process.env['TABLE_NAME'] = tables[kind];
          const {
            ms,
            summary,
            spent: cost,
            cpu: seconds,
          } = await run(round % 2 === 0 ? scenario.to : scenario.from);
          spent[kind].push(cost);
          cpu[kind].push(seconds);
          if (summary.changed !== changedCount)
            throw new Error(`expected ${changedCount} changed, got ${summary.changed}`);
          times[kind].push(ms);
          if (kind === 'with') {
            flipCounts.push(flips);
            completions.push(completionMs);
          }
          console.error(
            `    round ${round + 1}: ${kind} smart lists ${(ms / 1000).toFixed(2)} s (completion ${(completionMs / 1000).toFixed(2)} s, ${flips} flips)`,
          );
        }
      }
      // One more run each (the rounds ended on `from`), its completion step by step.
      const steps: Record<keyof typeof tables, string[]> = { without: [], with: [] };
      for (const kind of ['without', 'with'] as const) {
        process.env['TABLE_NAME'] = tables[kind];
        forgetSmartLists();
        async function* lines() {
          for (const record of scenario.to) yield JSON.stringify(record);
        }
        await importCompanies(lines(), {
          asOf: '2026-11-21',
          complete: async () => {
            const noted = (await getSmartListFlips()).length;
            for (const [step, work] of [
              ['lookalikes', () => recomputeMarked()],
              [`smart-list flips (${noted})`, () => applySmartListFlips()],
              [`contact counts (${scenario.contacts})`, () => applyContactChanges()],
            ] as const) {
              const before = { ...reads.sofar(), ...written(), cpu: javaCpu() };
              await work();
              const after = { ...reads.sofar(), ...written(), cpu: javaCpu() };
              steps[kind].push(
                `${step}: reads ${after.readRequests - before.readRequests} requests / ${after.readItems - before.readItems} items, ` +
                  `writes ${after.requests - before.requests} requests / ${after.items - before.items} items` +
                  (Number.isNaN(after.cpu)
                    ? ''
                    : `, DynamoDB Local ${(after.cpu - before.cpu).toFixed(2)} s CPU`),
              );
            }
          },
        });
      }
      process.env['TABLE_NAME'] = tables.with;
      const { getAccountLists } = await import('../../lib/lists/store/lists');
      const lists = await getAccountLists('acme');
      results.push({
        name: scenario.name,
        without: median(times.without),
        with: median(times.with),
        flips: median(flipCounts),
        completion: median(completions),
        members: lists.reduce((n, l) => n + l.counts.NEW + l.counts.SAVED + l.counts.ARCHIVED, 0),
        cpu: { without: median(cpu.without), with: median(cpu.with) },
        steps,
        added: {
          items: median(spent.with.map((c) => c.items)) - median(spent.without.map((c) => c.items)),
          requests: median(spent.with.map((c) => c.requests)) - median(spent.without.map((c) => c.requests)),
          units: median(spent.with.map((c) => c.units)) - median(spent.without.map((c) => c.units)),
        },
      });
    }

    const create: CreateFigures | null = creating
      ? { total, best: best!, amount, creates, median: createMedian }
      : null;
    printSmartListFigures(create, changedCount, listCount, results);
  } finally {
    stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
