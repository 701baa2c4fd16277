/**
 * `npm run bench:filings -- --import N [--replay]` (test/bench/filings.ts passes these on): the filing
 * import itself on DynamoDB Local against the ceiling of what DynamoDB Local alone writes of its items,
 * and with `--replay` where DynamoDB Local's CPU goes by request kind, what a filing writes by item
 * kind, the first run's share of a ceiling that prices its recorded reads too, and the runs' rate
 * against DynamoDB Local's own for the recorded requests sent alone (both beside the writes-only
 * ceiling, which stays the verdict).
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { belgianNumber, writeCbso } from './filing-files';
import type { JudgedRun } from './write-floor';

/**
 * `--import N`: N CBSO filings (three years of N / 3 companies) through `npm run import -- --format
 * cbso` into DynamoDB Local, after their companies (JSON Lines), then the same folder again; the
 * command's own summary and cost lines for each. With `runs` above 1, the first import is made that
 * many times, each into a table of its own holding the companies, each judged against the floors
 * measured just before and after it, and the runs' shares are printed together with their median.
 */
export async function importRun(count: number, replay = false, runs = 1): Promise<void> {
  process.env['AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED'] = 'true';
  const scratch = await mkdtemp(path.join(os.tmpdir(), 'filings-import-bench-'));
  const { ensureTable } = await import('../../infra/local/dynamodb');
  const { benchDynamoDb, dynamoDbLocalCpuMs } = await import('./local-dynamodb');
  const { runCli, usageReporter } = await import('./cli-runs');
  const { jfrPhase } = await import('./jfr');
  const { endpoint, stop } = await benchDynamoDb({ log: console.error });
  try {
    const usage = usageReporter(scratch);
    const companies = path.join(scratch, 'companies.jsonl');
    const lines = Array.from({ length: Math.ceil(count / 3) }, (_, c) =>
      JSON.stringify({ country: 'BE', companyNumber: belgianNumber(c * 7919), name: `Bench Company ${c}` }),
    );
    await writeFile(companies, `${lines.join('\n')}\n`);
    const folder = path.join(scratch, 'cbso');
    await writeCbso(folder, count);
    const options = { endpoint, usage };
    // Each measured run's table holds the companies before any floor is measured, so the floors and
    // the runs follow one another without a pause.
    const tables: string[] = [];
    for (let r = 0; r < runs; r++) {
      const table = `filings-bench-${Date.now()}-${r}`;
      await ensureTable(endpoint, table);
      console.error(`importing ${lines.length} companies`);
      await runCli('import', [companies, '--table', table, '--as-of', '2025-01-01'], options);
      tables.push(table);
    }
    // What DynamoDB Local alone writes (after the companies' import warmed it up): the import's ceiling.
    // Measured before each run and after it: each run is judged against the two floors around it.
    const {
      bracketingFloor,
      companiesPerSecondCeiling,
      floorLine,
      importWriteSplit,
      measureWriteFloor,
      runsLine,
    } = await import('./write-floor');
    const measureFloor = () => {
      console.error('measuring what DynamoDB Local itself can write (the floor)');
      return measureWriteFloor(endpoint);
    };
    let floorBefore = await measureFloor();
    let floor = floorBefore;
    // The first run's rate, writes and floor: what `--replay` prices its recorded reads against.
    let first: MeasuredRun | undefined;
    // Each measured first import's rate (filings/s): what `--replay` sets against its requests sent alone.
    const rates: number[] = [];
    const judged: JudgedRun[] = [];
    const labels = tables.map((table, r) => ({ label: runs > 1 ? `filings ${r + 1}` : 'filings', table }));
    for (const { label, table } of [...labels, { label: 'again', table: tables.at(-1)! }]) {
      console.error(`importing ${count} filings (${label})`);
      const javaBefore = dynamoDbLocalCpuMs(endpoint);
      const run = await jfrPhase(endpoint, `import-${label.replace(/ /g, '-')}`, () =>
        runCli('import', ['--format', 'cbso', folder, '--table', table], options),
      );
      const javaMs = dynamoDbLocalCpuMs(endpoint) - javaBefore;
      const floorAfter = await measureFloor();
      floor = bracketingFloor(floorBefore, floorAfter);
      console.log(`floor before the ${label} run (batch / transaction / update): ${floorLine(floorBefore)}`);
      console.log(`floor after it: ${floorLine(floorAfter)}`);
      floorBefore = floorAfter;
      const rate = Number(/\((\d+) companies\/s\)/.exec(run.stdout)?.[1] ?? 0);
      const writes = /^writes: .*$/m.exec(run.stdout)?.[0] ?? '';
      const split = importWriteSplit(writes);
      const ceiling = companiesPerSecondCeiling(floor, split);
      first ??= { rate, split, floor };
      if (Number.isFinite(ceiling))
        console.log(
          `ceiling: ${Math.round(ceiling)} filings/s (the items a filing writes, by kind of request, at the ` +
            `median rates of the floors' rounds before and after the run; its reads left out); ` +
            `${Math.round((100 * rate) / ceiling)} % of it`,
        );
      console.log(
        `${label}: ${count} filings in ${run.wallSeconds.toFixed(1)} s wall, ${run.cpuSeconds.toFixed(1)} s CPU, peak ${run.maxRssMb.toFixed(0)} MB, load ${os.loadavg()[0]!.toFixed(1)}`,
      );
      console.log(run.stdout.trim());
      // Where the CPU went: DynamoDB Local's against what the floor's items cost it, and the command's own.
      const floorMs =
        split.batchItems * floor.batch.javaMsPerItem +
        split.transactionItems * floor.transaction.javaMsPerItem;
      const commandMs = (1000 * run.cpuSeconds) / count;
      console.log(
        `CPU a filing: DynamoDB Local ${(javaMs / count).toFixed(3)} ms (its items at the floor's cost ${floorMs.toFixed(3)} ms), ` +
          `the import command ${commandMs.toFixed(3)} ms`,
      );
      if (label !== 'again') {
        rates.push(rate);
        if (Number.isFinite(ceiling))
          judged.push({ share: (100 * rate) / ceiling, javaMs: javaMs / count, floorMs, commandMs });
      }
    }
    if (runs > 1) console.log(runsLine(judged));
    if (replay)
      await replayDiagnostic({ endpoint, usage, companies, folder, count, floor, first: first!, rates });
  } finally {
    stop();
    await rm(scratch, { recursive: true, force: true });
  }
}

/** A measured run: its filings a second, the items a filing wrote by kind of request, its floor. */
interface MeasuredRun {
  rate: number;
  split: import('./write-floor').WriteSplit;
  floor: import('./write-floor').WriteFloor;
}

/**
 * `--replay`: after the measured runs, the same companies and filings imported once more into a table
 * of their own through a recording proxy (test/bench/recording-proxy.ts; not measured: the proxy adds
 * latency), then every request the filing import sent replayed by kind (write-replay.ts `replay`,
 * `byOperation`), and its writes counted by item kind (write-kinds.ts). DynamoDB Local's CPU a filing for the writes replayed against what the floor's small
 * items would cost (the items' size and shape), and for the reads replayed (what the floor leaves out).
 */
async function replayDiagnostic(bench: {
  endpoint: string;
  usage: string;
  companies: string;
  folder: string;
  count: number;
  floor: import('./write-floor').WriteFloor;
  first: MeasuredRun;
  rates: number[];
}): Promise<void> {
  const { ensureTable } = await import('../../infra/local/dynamodb');
  const { runCli } = await import('./cli-runs');
  const { recordingProxy } = await import('./recording-proxy');
  const { isWrite, parseRequests, replay } = await import('./write-replay');
  const { actionsOf, countActions, formatBreakdown, perCompany } = await import('./write-kinds');
  // Each table a replay writes to holds the bench's companies first, as the recorded run's did.
  const withCompanies = async (table: string) => {
    await runCli('import', [bench.companies, '--table', table, '--as-of', '2025-01-01'], bench);
  };
  const table = `filings-replay-${Date.now()}`;
  await ensureTable(bench.endpoint, table);
  await withCompanies(table);
  const proxy = await recordingProxy(bench.endpoint);
  try {
    console.error(`importing ${bench.count} filings through the recording proxy`);
    await runCli('import', ['--format', 'cbso', bench.folder, '--table', table], {
      ...bench,
      endpoint: proxy.endpoint,
    });
  } finally {
    await proxy.close();
  }
  const requests = parseRequests(proxy.requests);
  const writeRequests = requests.filter((request) => isWrite(request.operation));
  const { operations } = await replay(bench.endpoint, requests, {
    byOperation: true,
    prepare: withCompanies,
  });
  const writes = operations.filter((kind) => isWrite(kind.operation));
  const reads = operations.filter((kind) => !isWrite(kind.operation));
  const perFiling = (x: number) => (x / bench.count).toFixed(3);
  console.log(`replayed (DynamoDB Local's CPU a filing, load ${os.loadavg()[0]!.toFixed(1)}):`);
  for (const kind of [...writes, ...reads]) {
    const atFloor =
      kind.operation === 'TransactWriteItems'
        ? kind.items * bench.floor.transaction.javaMsPerItem
        : kind.operation === 'BatchGetItem'
          ? kind.items * bench.floor.read.javaMsPerItem
          : kind.items * bench.floor.batch.javaMsPerItem;
    console.log(
      `  ${kind.operation.padEnd(18)} ${perFiling(kind.requests)} requests, ${perFiling(kind.items)} items, ` +
        `${Math.round(kind.bytes / Math.max(1, kind.items))} bytes an item: ${perFiling(kind.javaMs)} ms ` +
        `(the floor's items ${perFiling(atFloor)} ms)` +
        (kind.refused ? `, ${kind.refused} refused (${kind.refusal})` : ''),
    );
  }
  await readsPricedCeiling(bench.first, reads, bench.count);
  await recordedRequestsAlone(bench, requests, withCompanies);
  // The batched writes again, one item kind at a time: which items cost DynamoDB Local more than the floor's.
  const kinds = await replay(bench.endpoint, writeRequests, {
    byOperation: true,
    byItemKind: true,
    prepare: withCompanies,
  });
  console.log(`batched writes replayed one item kind at a time (load ${os.loadavg()[0]!.toFixed(1)}):`);
  for (const kind of kinds.operations.filter((k) => k.operation.startsWith('BatchWriteItem ')))
    console.log(
      `  ${kind.operation.slice('BatchWriteItem '.length).padEnd(26)} ${perFiling(kind.items)} items, ` +
        `${Math.round(kind.bytes / Math.max(1, kind.items))} bytes an item: ${perFiling(kind.javaMs)} ms a filing, ` +
        `${(kind.javaMs / Math.max(1, kind.items)).toFixed(3)} ms an item (the floor's ${bench.floor.batch.javaMsPerItem.toFixed(3)})`,
    );
  // The same batched writes as recorded, sorted by key, and as recorded without asking the capacity
  // consumed, taking turns: does their mix cost DynamoDB Local, or the capacity asked?
  const turns = ['as recorded', 'sorted by key', 'without capacity asked'] as const;
  for (const turn of [...turns, ...turns]) {
    const sortedByKey = turn === 'sorted by key';
    const run = await replay(bench.endpoint, writeRequests, {
      byOperation: true,
      sortedByKey,
      ...(turn === 'without capacity asked' ? { variant: turn } : {}),
      prepare: withCompanies,
      profiledAs: `replay-${turn.replace(/ /g, '-')}`,
    });
    const batch = run.operations.find((k) => k.operation.startsWith('BatchWriteItem'))!;
    console.log(
      `  batched writes ${turn.padEnd(22)}: ${perFiling(batch.requests)} requests, ` +
        `${perFiling(batch.javaMs)} ms a filing (load ${os.loadavg()[0]!.toFixed(1)})` +
        (batch.refused ? `, ${batch.refused} refused (${batch.refusal})` : ''),
    );
  }
  console.log('written, by item kind (a filing):');
  const byKind = new Map<string, import('./write-kinds').KindCount>();
  for (const request of writeRequests) countActions(byKind, actionsOf(request));
  for (const line of formatBreakdown(perCompany(byKind, bench.count))) console.log(`  ${line}`);
  const sum = (kinds: typeof writes) => kinds.reduce((ms, kind) => ms + kind.javaMs, 0);
  console.log(`  writes ${perFiling(sum(writes))} ms, reads ${perFiling(sum(reads))} ms a filing`);
}

/** Turns of the recorded requests replayed alone (`recordedRequestsAlone`). */
const ALONE_REPLAYS = 3;

/**
 * Every request the recorded import sent (its reads and writes), replayed in their recorded order,
 * IN_FLIGHT at once, into a table holding the companies, with nothing of the import between them, in
 * `ALONE_REPLAYS` turns: the rate DynamoDB Local alone keeps for exactly the import's work (the median
 * of the turns; one turn moves by a quarter with the minute), and the measured runs' median rate
 * against it — how far the import keeps DynamoDB Local busy with what it asks. A diagnostic beside the
 * verdict (the floor's ceiling), not one: it prices the import's requests at their own cost, however
 * many or dear they are.
 */
async function recordedRequestsAlone(
  bench: { endpoint: string; count: number; rates: number[] },
  requests: import('./write-kinds').ParsedRequest[],
  prepare: (table: string) => Promise<void>,
): Promise<void> {
  const { replay } = await import('./write-replay');
  const { IN_FLIGHT } = await import('./write-floor');
  const { middleMedian } = await import('./statistics');
  const turns: Array<{ rate: number; javaMs: number; refused: number }> = [];
  for (let turn = 0; turn < ALONE_REPLAYS; turn++) {
    const alone = await replay(bench.endpoint, requests, { prepare });
    turns.push({
      rate: bench.count / alone.seconds,
      javaMs: alone.javaMs / bench.count,
      refused: alone.refused,
    });
  }
  const rate = middleMedian(turns.map((turn) => turn.rate));
  const runs = middleMedian(bench.rates);
  const refused = turns.reduce((n, turn) => n + turn.refused, 0);
  console.log(
    `the recorded requests replayed alone, in their order, ${IN_FLIGHT} in flight, ${ALONE_REPLAYS} turns: ` +
      `${turns.map((turn) => Math.round(turn.rate)).join(', ')} filings/s (median ${Math.round(rate)}), DynamoDB ` +
      `Local ${turns.map((turn) => turn.javaMs.toFixed(3)).join(', ')} ms a filing (load ${os.loadavg()[0]!.toFixed(1)}); ` +
      `the measured runs' median ${Math.round(runs)} filings/s ${Math.round((100 * runs) / rate)} % of it` +
      (refused ? `; ${refused} requests refused in this order` : ''),
  );
}

/**
 * The first run's share of a ceiling that prices its reads as well, beside the writes-only one: the
 * keys its BatchGetItem requests read in the recorded run (the same filings into the same companies),
 * at the read floor's median rate of the rounds around that run; its queries are not priced (the floor
 * measures none) and are counted on the line.
 */
async function readsPricedCeiling(
  first: MeasuredRun,
  reads: Array<{ operation: string; requests: number; items: number }>,
  count: number,
): Promise<void> {
  const { companiesPerSecondCeiling } = await import('./write-floor');
  const of = (operation: string) => reads.filter((kind) => kind.operation === operation);
  const readKeys = of('BatchGetItem').reduce((keys, kind) => keys + kind.items, 0) / count;
  const queries = of('Query').reduce((n, kind) => n + kind.requests, 0) / count;
  const writesOnly = companiesPerSecondCeiling(first.floor, first.split);
  const withReads = companiesPerSecondCeiling(first.floor, first.split, readKeys);
  const share = (ceiling: number) => `${Math.round((100 * first.rate) / ceiling)} %`;
  console.log(
    `ceiling of the first run with its reads priced: ${Math.round(withReads)} filings/s (its writes as on its ` +
      `ceiling line, and the ${readKeys.toFixed(3)} keys a filing its BatchGetItem requests read when recorded, ` +
      `at the read floor's median rate, ${Math.round(first.floor.read.itemsPerSecond)} keys/s; its ` +
      `${queries.toFixed(3)} queries a filing not priced); ${share(withReads)} of it, against ` +
      `${Math.round(writesOnly)} filings/s and ${share(writesOnly)} for its writes alone`,
  );
}
