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
 */
import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import { benchDynamoDb, dynamoDbLocalCpuMs } from './local-dynamodb';

const CREATE_BUDGET_MS = 3000;
const IMPORT_BUDGET = 0.2;

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
    const { filterProfileOf, packProfile, matchesFilters } = await import('../../lib/lists/filters');
    const { filterProfileItem } = await import('../../lib/lists/store/profiles');
    const { batchPut } = await import('../../lib/storage/batch');
    const { tableName } = await import('../../lib/storage/client');
    const { handler: createList } = await import('../../functions/create-list');
    const { proxyEvent, lambdaContext } = await import('../support/events');

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
    const profiles = records.map(filterProfileOf);
    // The filter closest to 5,000 matches: one country, its most common NACE divisions added in turn.
    let best: { filters: { countries: ['BE' | 'NL' | 'FR']; activities: string[] }; count: number } | null =
      null;
    for (const country of ['BE', 'NL', 'FR'] as const) {
      const divisions = new Map<string, number>();
      for (const p of profiles) {
        if (p.country !== country) continue;
        for (const d of new Set(p.activities.map((a) => a.slice(0, 2))))
          divisions.set(d, (divisions.get(d) ?? 0) + 1);
      }
      const activities: string[] = [];
      for (const [division] of [...divisions].sort((a, b) => b[1] - a[1])) {
        activities.push(division);
        const filters = { countries: [country] as ['BE' | 'NL' | 'FR'], activities: [...activities] };
        const count = profiles.filter((p) => matchesFilters(filters, p)).length;
        if (!best || Math.abs(count - 5000) < Math.abs(best.count - 5000)) best = { filters, count };
        if (count >= 5000) break;
      }
    }
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
    const { olderSnapshotOf } = await import('../fixtures/demo-data/snapshots');
    // Companies whose registry data changed between the demo's two snapshots (new accounts filed,
    // people left): the change an import of a registry extract mostly brings.
    const pool = generateDemoData({ companies: changedCount * 8 });
    const olderPool = olderSnapshotOf(pool);
    const picked = pool
      .map((current, i) => ({ current, older: olderPool[i]! }))
      .filter(({ current, older }) => JSON.stringify(current) !== JSON.stringify(older))
      .slice(0, changedCount);
    if (picked.length < changedCount) throw new Error(`only ${picked.length} changed demo companies`);
    const current = picked.map((p) => p.current);
    const older = picked.map((p) => p.older);
    const places = [...new Set(current.map((r) => r.place))];
    const codes = [...new Set(current.flatMap((r) => r.activities))];
    // The worst case for flips: every company moves to another place, every third one also changes
    // activity (its contacts stay as they are).
    const moved = current.map((r, i) => ({
      ...r,
      place: places[(places.indexOf(r.place) + 1 + (i % 7)) % places.length]!,
      activities: i % 3 === 0 ? [codes[(i * 31) % codes.length]!, ...r.activities.slice(1)] : r.activities,
    }));
    const contactsChanged = picked.filter(
      (p) => p.current.contacts.length !== p.older.contacts.length,
    ).length;
    const scenarios = [
      {
        name: `new accounts filed, people left (${contactsChanged} contact counts change)`,
        from: older,
        to: current,
        contacts: contactsChanged,
      },
      { name: 'every company moves', from: current, to: moved, contacts: 0 },
    ];
    const { completeImport } = await import('../../lib/import/derive');
    const { getSmartListFlips } = await import('../../lib/lists/store/smart-flips');
    let completionMs = 0;
    let flips = 0;
    const { applySmartListFlips, forgetSmartLists } = await import('../../lib/lists/smart');
    const { applyContactChanges } = await import('../../lib/lists/derive');
    const { recomputeMarked } = await import('../../lib/lookalikes/recompute');
    const { countWrites, writesSoFar } = await import('../../lib/storage/write-counts');
    countWrites();
    /** Items, write requests and write units (items up to 1 KB) this process has written so far. */
    const written = () => {
      const counts = [...writesSoFar()];
      const items = counts.reduce((n, [, c]) => n + c.items, 0);
      return {
        items,
        requests: counts.reduce((n, [, c]) => n + c.requests, 0),
        units: items + (writesSoFar().get('TransactWriteItemsCommand')?.items ?? 0),
      };
    };
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
    let random = 11;
    const next = () => {
      random = (Math.imul(random ^ (random >>> 15), 0x2c1b3c6d) + 0x9e3779b9) >>> 0;
      return random / 4294967296;
    };
    const pick = <T>(items: readonly T[], n: number) => [
      ...new Set(Array.from({ length: n }, () => items[Math.floor(next() * items.length)]!)),
    ];
    const divisions = [...new Set(codes.map((c) => c.slice(0, 2)))];
    // Ranges cut where the data is: bounds at quantiles of the companies' own figures.
    const latest = current.map((r) => r.financials[0]).filter((p) => p !== undefined);
    const quantiles = (values: (number | null)[]) => {
      const sorted = values.filter((x): x is number => x !== null).sort((a, b) => a - b);
      return (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
    };
    const figures = {
      employees: quantiles(latest.map((p) => p.people.employees)),
      totalAssets: quantiles(latest.map((p) => p.solvency.totalAssets)),
      healthIndicator: quantiles(latest.map((p) => p.healthIndicator)),
    };
    const rangeOf = (quantile: (q: number) => number) => {
      const low = next() * 0.8;
      const high = low + 0.2 + next() * (1 - low - 0.2);
      if (next() < 0.4) return { min: quantile(low) };
      if (next() < 0.3) return { max: quantile(high) };
      return { min: quantile(low), max: quantile(high) };
    };
    const listFilters = Array.from({ length: listCount }, () => {
      const filters: Record<string, unknown> = {};
      if (next() < 0.7) filters['countries'] = pick(['BE', 'NL', 'FR'], 1 + Math.floor(next() * 2));
      if (next() < 0.6) filters['activities'] = pick(divisions, 1 + Math.floor(next() * 3));
      if (next() < 0.2) filters['places'] = pick(places, 1 + Math.floor(next() * 2));
      if (next() < 0.4) filters['employees'] = rangeOf(figures.employees);
      if (next() < 0.25) filters['totalAssets'] = rangeOf(figures.totalAssets);
      if (next() < 0.3 || Object.keys(filters).length === 0)
        filters['healthIndicator'] = rangeOf(figures.healthIndicator);
      return filters;
    });

    const results: {
      name: string;
      without: number;
      with: number;
      flips: number;
      completion: number;
      members: number;
      /** DynamoDB Local's CPU seconds a run (medians). */
      cpu: { without: number; with: number };
      /** The completion's steps, without and with the lists. */
      steps: Record<'without' | 'with', string[]>;
      /** Items, write requests and write units a run with the lists wrote beyond one without. */
      added: { items: number; requests: number; units: number };
    }[] = [];
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
      const spent: Record<keyof typeof tables, { items: number; requests: number; units: number }[]> = {
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

    console.log('');
    if (creating)
      console.log(
        `Creating a smart list over ${total.toLocaleString('en')} companies (filter ${JSON.stringify(best!.filters)}):`,
      );
    if (creating)
      console.log(
        `  ${amount.toLocaleString('en')} companies, ${creates.map((ms) => ms.toFixed(0)).join(' / ')} ms (median ${createMedian.toFixed(0)} ms, budget ${CREATE_BUDGET_MS} ms: ${createMedian <= CREATE_BUDGET_MS ? 'PASS' : 'OVER'})`,
      );
    console.log(
      `Import of ${changedCount.toLocaleString('en')} changed companies, without and with ${listCount} smart lists (median of 4 runs each):`,
    );
    for (const r of results) {
      const added = r.with / r.without - 1;
      const perFlip = r.flips > 0 ? ((r.with - r.without) / r.flips).toFixed(2) : '–';
      console.log(
        `  ${r.name}: ${(r.without / 1000).toFixed(2)} s → ${(r.with / 1000).toFixed(2)} s (+${(added * 100).toFixed(1)} %, budget +${IMPORT_BUDGET * 100} %: ${added <= IMPORT_BUDGET ? 'PASS' : 'OVER'}); ` +
          `${r.flips} flips (${(r.flips / changedCount).toFixed(2)} a company, ${perFlip} ms each if they were all the cost), completion ${(r.completion / 1000).toFixed(2)} s; ` +
          `the lists hold ${r.members.toLocaleString('en')} companies (${(r.members / changedCount).toFixed(1)} lists a company)`,
      );
      const eachFlip = (n: number) => (r.flips > 0 ? (n / r.flips).toFixed(2) : '–');
      console.log(
        `    the lists add ${r.added.items.toLocaleString('en')} items in ${r.added.requests.toLocaleString('en')} write requests (${r.added.units.toFixed(0)} write units): ` +
          `${eachFlip(r.added.items)} items, ${eachFlip(r.added.requests)} requests, ${eachFlip(r.added.units)} write units per flip`,
      );
      if (!Number.isNaN(r.cpu.with))
        console.log(
          `    DynamoDB Local's CPU a run: ${r.cpu.without.toFixed(2)} s → ${r.cpu.with.toFixed(2)} s (+${((r.cpu.with / r.cpu.without - 1) * 100).toFixed(1)} %)`,
        );
      for (const kind of ['without', 'with'] as const) {
        console.log(`    completion step by step, ${kind} the lists:`);
        for (const line of r.steps[kind]) console.log(`      ${line}`);
      }
    }
  } finally {
    stop();
  }
}

/** Counts the read requests this client sends and the items they return, from now on. */
function countReads(client: { middlewareStack: { add: (...args: never[]) => void } }) {
  const counted = { readRequests: 0, readItems: 0 };
  const READS = new Set(['GetItemCommand', 'BatchGetItemCommand', 'QueryCommand']);
  const middleware =
    (
      next: (args: unknown) => Promise<{ output: Record<string, unknown> }>,
      context: { commandName?: string },
    ) =>
    async (args: unknown) => {
      const result = await next(args);
      if (READS.has(context.commandName ?? '')) {
        const output = result.output;
        counted.readRequests++;
        const responses = output['Responses'] as Record<string, unknown[]> | undefined;
        counted.readItems += responses
          ? Object.values(responses).reduce((n, items) => n + items.length, 0)
          : ((output['Items'] as unknown[] | undefined)?.length ?? (output['Item'] ? 1 : 0));
      }
      return result;
    };
  client.middlewareStack.add(middleware as never, { step: 'initialize', name: 'benchReadCounter' } as never);
  return { sofar: () => ({ ...counted }) };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
