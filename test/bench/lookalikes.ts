/**
 * `npm run bench:lookalikes`: the quality and cost of the lookalikes (contract §6.3, issue budgets).
 *
 * Companies are generated with a fixed seed: noise (NACE codes over 40 divisions of very unequal size,
 * 600 places in three countries, sizes spread over five orders of magnitude, any age and health) and
 * planted families of 2 to 5 near-identical companies (the same 5-digit activity and place, employees
 * and total assets within ±15 % of the family's, age and health free). Then:
 *
 * 1. In memory, per size (30,000 and 100,000 by default), in child processes of their own, one per
 *    core (`--workers N`), running at once as the fan-out's workers do: each builds every section's
 *    index and computes its shard of the lists (every Nth company). The full recompute's time is the
 *    slowest worker's (with its CPU time: what the time would be on idle cores), its peak memory the sum of theirs (max RSS), and the mean family recall@5 is
 *    the share of a member's family found in its top 5, averaged over members.
 * 2. On DynamoDB Local (30,000 and 100,000 by default): the full recompute job as deployed (read every block, write
 *    every list), then one company changed and the import's completion recomputing what it touches.
 *
 *   npm run bench:lookalikes
 *   npm run bench:lookalikes -- --sizes 30000,100000,300000 --dynamodb-sizes 3000
 *   npm run bench:lookalikes -- --sizes 1000000 --dynamodb-sizes '' --workers 2
 *   DYNAMODB_ENDPOINT=http://localhost:8000 npm run bench:lookalikes   an existing DynamoDB Local
 *
 * Figures only: it exits 0 whatever they are.
 */
import { spawn } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import { compareCompanies, computeLists, KEPT } from '../../lib/lookalikes/compute';
import { blockOf } from '../../lib/lookalikes/features';
import { SectionIndex } from '../../lib/lookalikes/section-index';
import { PreparedFeatures } from '../../lib/lookalikes/scoring';
import { mulberry32 } from '../fixtures/demo-data/random';
import { GeneratedCompanies } from './lookalike-companies';
import { benchDynamoDb } from './local-dynamodb';

/** Full recompute budgets in seconds by size (2 cores); sizes not listed are not judged on time. */
const BUDGET = {
  recall: 0.99,
  fullSeconds: new Map([
    [300_000, 60],
    [1_000_000, 300],
  ]),
  fullMb: 2048,
  changeSeconds: 1,
  sampled: 1_000,
} as const;
/** The companies of each section (lib/lookalikes/features.ts), as indices into `companies`. */
function sectionsOf(companies: GeneratedCompanies): Map<string, number[]> {
  const sections = new Map<string, number[]>();
  for (let i = 0; i < companies.length; i++) {
    const section = companies.sectionOf(i);
    const members = sections.get(section) ?? [];
    members.push(i);
    sections.set(section, members);
  }
  return sections;
}

/**
 * The full recompute in memory, section by section, keeping each family member's top 5 and the whole
 * list of the sampled companies the exactness check compares with brute force.
 */
function recomputeInMemory(companies: GeneratedCompanies, sampled: Set<number>, shard = { index: 0, of: 1 }) {
  const { family } = companies;
  const sections = sectionsOf(companies);
  const top5 = new Map<number, number[]>();
  const kept = new Map<number, Array<[number, number]>>();
  let lists = 0;
  let pairs = 0;
  let indexSeconds = 0;
  const started = performance.now();
  const cpuStarted = process.cpuUsage();
  for (const members of sections.values()) {
    const indexStarted = performance.now();
    // The section's companies as objects only while its index is built (see lookalike-companies.ts).
    const index = new SectionIndex(members.map((i) => companies.at(i)));
    indexSeconds += (performance.now() - indexStarted) / 1000;
    // This worker's shard of the section's subjects: every `of`-th, so the shards are alike in cost.
    const subjects =
      shard.of === 1 ? 'all' : members.map((_, i) => i).filter((i) => i % shard.of === shard.index);
    const stats = computeLists(index, subjects, (subject, list) => {
      lists++;
      const company = members[subject]!;
      if (family[company]! >= 0)
        top5.set(
          company,
          list.slice(0, 5).map((l) => members[l.index]!),
        );
      if (sampled.has(company))
        kept.set(
          company,
          list.map((l) => [members[l.index]!, l.score]),
        );
    });
    pairs += stats.pairs;
  }
  const seconds = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpuStarted);
  // CPU time says what the wall time would be on an idle core, when other work shares the machine.
  const cpuSeconds = (cpu.user + cpu.system) / 1e6;
  // Recall@5 of a member: the share of the rest of its family found in its top 5.
  const familyOf = new Map<number, number[]>();
  family.forEach((f, i) => f >= 0 && familyOf.set(f, [...(familyOf.get(f) ?? []), i]));
  const recalls: number[] = [];
  for (const [company, top] of top5) {
    const others = familyOf.get(family[company]!)!.filter((i) => i !== company);
    recalls.push(others.filter((i) => top.includes(i)).length / others.length);
  }
  const sizes = [...sections.values()].map((m) => m.length);
  return {
    companies: companies.length,
    sections: sections.size,
    largestSection: Math.max(...sizes),
    allPairs: sizes.reduce((sum, n) => sum + n * (n - 1), 0),
    pairs,
    lists,
    families: familyOf.size,
    familyMembers: recalls.length,
    recallSum: recalls.reduce((a, b) => a + b, 0),
    indexSeconds,
    seconds,
    cpuSeconds,
    kept,
  };
}

/**
 * The exactness check: for each sampled company, its best KEPT by scoring every other company of its
 * section (the contract's order: score descending, then country, company number), against the kept list.
 * Returns how many differ, with the first difference.
 */
function bruteForceCheck(companies: GeneratedCompanies, kept: Map<number, Array<[number, number]>>) {
  const sections = sectionsOf(companies);
  let differing = 0;
  let first = '';
  let pairs = 0;
  const prepared = new Map<string, PreparedFeatures>();
  for (const [company, list] of kept) {
    const section = companies.sectionOf(company);
    const members = sections.get(section)!;
    let features = prepared.get(section);
    if (!features)
      prepared.set(section, (features = new PreparedFeatures(members.map((i) => companies.at(i)))));
    const self = members.indexOf(company);
    // Every pair scored; only those at or above the KEPT-th best score (found by counting) are sorted.
    const scores = new Int32Array(members.length);
    const counts = new Int32Array(10_001);
    members.forEach((_, k) => k !== self && counts[(scores[k] = features.score(self, k))]!++);
    pairs += members.length - 1;
    let threshold = 10_000;
    for (let seen = counts[threshold]!; seen < KEPT && threshold > 0;) seen += counts[--threshold]!;
    const scored: Array<[number, number]> = [];
    members.forEach((other, k) => k !== self && scores[k]! >= threshold && scored.push([other, scores[k]!]));
    scored.sort((a, b) => b[1] - a[1] || compareCompanies(companies.at(a[0]), companies.at(b[0])));
    const expected = scored.slice(0, KEPT);
    const same =
      expected.length === list.length &&
      expected.every(([other, score], i) => list[i]![0] === other && list[i]![1] === score);
    if (!same) {
      differing++;
      first ||= `company ${company}: kept ${JSON.stringify(list.slice(0, 3))}… brute force ${JSON.stringify(expected.slice(0, 3))}…`;
    }
  }
  return { checked: kept.size, differing, first, pairs };
}

/** `count` distinct companies out of `size`, drawn with a fixed seed. */
function sample(size: number, count: number): Set<number> {
  const random = mulberry32(11);
  const picked = new Set<number>();
  while (picked.size < Math.min(count, size)) picked.add(Math.floor(random() * size));
  return picked;
}

async function onDynamoDb(endpoint: string, size: number) {
  const { ensureTable, localClient } = await import('../../infra/local/dynamodb');
  const table = `lookalikes-bench-${randomUUID()}`;
  process.env['TABLE_NAME'] = table;
  try {
    await ensureTable(endpoint, table);
    const { batchPut } = await import('../../lib/storage/batch');
    const { featuresItem, recordChange } = await import('../../lib/lookalikes/block-store');
    const { recomputeAll, recomputeMarked } = await import('../../lib/lookalikes/recompute');
    const companies = new GeneratedCompanies(size).all();
    progress(`DynamoDB Local: storing the features of ${size} companies`);
    await batchPut(
      table,
      companies.map((c) => featuresItem(c)),
      16,
    );

    progress('DynamoDB Local: full recompute job');
    const full = await recomputeAll();

    // One company of the biggest block changes size and place: the import's derivation and completion.
    const changedIndex = companies.findIndex((c) => blockOf(c) === '10');
    const before = companies[changedIndex]!;
    const after = { ...before, employees: (before.employees ?? 0) * 3 + 5, place: 'BE-place-0' };
    progress('DynamoDB Local: one changed company');
    const started = performance.now();
    await recordChange(before, after, 'bench.1');
    const marked = await recomputeMarked();
    const changeSeconds = (performance.now() - started) / 1000;
    return { size, full, change: { ...marked, seconds: changeSeconds } };
  } finally {
    const { DeleteTableCommand } = await import('@aws-sdk/client-dynamodb');
    const client = localClient(endpoint);
    await client.send(new DeleteTableCommand({ TableName: table })).catch(() => undefined);
    client.destroy();
  }
}

function progress(message: string): void {
  process.stderr.write(`bench:lookalikes: ${message}\n`);
}

const pass = (ok: boolean) => (ok ? 'PASS' : 'OVER');

type Shard = Omit<ReturnType<typeof recomputeInMemory>, 'kept'> & {
  maxRssMb: number;
  exactness: ReturnType<typeof bruteForceCheck>;
  checkSeconds: number;
};

function runChild(args: string[]): Promise<Shard> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    child.on('error', reject);
    child.on('close', (status) =>
      status === 0
        ? resolve(JSON.parse(out.trim().split('\n').pop()!) as Shard)
        : reject(new Error(`child failed: ${err}`)),
    );
  });
}

/**
 * The shards as one run: they ran at the same time, so the run took as long as the slowest and held
 * the sum of their peak memories; counts add up.
 */
function combine(shards: Shard[]) {
  const sum = (pick: (s: Shard) => number) => shards.reduce((total, s) => total + pick(s), 0);
  const first = shards[0]!;
  return {
    ...first,
    pairs: sum((s) => s.pairs),
    lists: sum((s) => s.lists),
    familyMembers: sum((s) => s.familyMembers),
    recallAt5: sum((s) => s.recallSum) / sum((s) => s.familyMembers),
    indexSeconds: Math.max(...shards.map((s) => s.indexSeconds)),
    seconds: Math.max(...shards.map((s) => s.seconds)),
    cpuSeconds: Math.max(...shards.map((s) => s.cpuSeconds)),
    maxRssMb: sum((s) => s.maxRssMb),
    checkSeconds: Math.max(...shards.map((s) => s.checkSeconds)),
    exactness: {
      checked: sum((s) => s.exactness.checked),
      differing: sum((s) => s.exactness.differing),
      first: shards.map((s) => s.exactness.first).find(Boolean) ?? '',
      pairs: sum((s) => s.exactness.pairs),
    },
  };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      sizes: { type: 'string' },
      'dynamodb-sizes': { type: 'string' },
      workers: { type: 'string' },
      child: { type: 'string' },
      shard: { type: 'string' },
    },
  });
  if (values.child) {
    // One size (one shard of its subjects), in memory, in a process of its own so that its peak
    // memory is its own.
    const [index, of] = (values.shard ?? '0/1').split('/').map(Number) as [number, number];
    const generated = new GeneratedCompanies(Number(values.child));
    // Each worker keeps the lists it computes of the sampled companies: together, every sampled one.
    const sampled = sample(generated.length, BUDGET.sampled);
    const { kept, ...result } = recomputeInMemory(generated, sampled, { index, of });
    const maxRssMb = process.resourceUsage().maxRSS / 1024;
    const checkStarted = performance.now();
    const exactness = bruteForceCheck(generated, kept);
    const checkSeconds = (performance.now() - checkStarted) / 1000;
    process.stdout.write(`${JSON.stringify({ ...result, maxRssMb, exactness, checkSeconds })}\n`);
    return;
  }
  const sizes = (values.sizes ?? '30000,100000').split(',').map(Number);
  const dynamoSizes = (values['dynamodb-sizes'] ?? '30000,100000').split(',').filter(Boolean).map(Number);
  const workers = Number(values.workers ?? availableParallelism());
  if ([...sizes, ...dynamoSizes].some((n) => !Number.isInteger(n) || n < 2))
    throw new Error('sizes are integers ≥ 2');
  if (!Number.isInteger(workers) || workers < 1) throw new Error('--workers is an integer ≥ 1');

  console.log(
    `Full recompute in memory (every section, every list), per size ${workers} worker process(es) at once, ` +
      "each building every section's index and computing " +
      `${workers === 1 ? 'every list' : `the lists of one company in ${workers} (the shards of the fan-out)`}`,
  );
  console.log(
    `Budgets: recall@5 ≥ ${BUDGET.recall}; ${[...BUDGET.fullSeconds].map(([n, s]) => `${n.toLocaleString('en')} companies ≤ ${s} s`).join(', ')}; ` +
      `≤ ${BUDGET.fullMb} MB; the kept lists of ${BUDGET.sampled} sampled companies equal a brute-force top ${KEPT} over their section\n`,
  );
  console.log(
    'companies  sections  largest section  pairs scored (per company, share of all pairs)  families (members)  recall@5  index s  seconds (CPU)  peak MB  exact (sampled)  budget',
  );
  for (const size of sizes) {
    progress(`in memory: ${size} companies, ${workers} worker(s)`);
    const shards = await Promise.all(
      Array.from({ length: workers }, (_, k) =>
        runChild([...process.execArgv, __filename, '--child', String(size), '--shard', `${k}/${workers}`]),
      ),
    );
    const r = combine(shards);
    const budgetSeconds = BUDGET.fullSeconds.get(size);
    const ok =
      r.recallAt5 >= BUDGET.recall &&
      (budgetSeconds === undefined || r.seconds <= budgetSeconds) &&
      r.maxRssMb <= BUDGET.fullMb &&
      r.exactness.differing === 0;
    console.log(
      [
        String(r.companies).padStart(9),
        String(r.sections).padStart(8),
        String(r.largestSection).padStart(15),
        `${r.pairs} (${(r.pairs / r.lists).toFixed(0)}, ${((100 * r.pairs) / r.allPairs).toFixed(3)} %)`.padStart(
          45,
        ),
        `${r.families} (${r.familyMembers})`.padStart(18),
        r.recallAt5.toFixed(4).padStart(8),
        r.indexSeconds.toFixed(1).padStart(7),
        `${r.seconds.toFixed(1)} (${r.cpuSeconds.toFixed(1)})`.padStart(15),
        r.maxRssMb.toFixed(0).padStart(7),
        `${r.exactness.checked - r.exactness.differing}/${r.exactness.checked}`.padStart(15),
        `  ${pass(ok)}${budgetSeconds === undefined ? ' (time not judged at this size)' : ''}`,
      ].join('  '),
    );
    if (r.exactness.differing > 0) console.log(`  first difference: ${r.exactness.first}`);
    console.log(
      `  largest section ${((100 * r.largestSection) / r.companies).toFixed(1)} % of the companies; brute-force check: ${r.exactness.pairs} pairs in ${r.checkSeconds.toFixed(1)} s`,
    );
  }

  if (dynamoSizes.length === 0) return;
  // The storage client is built once, for one endpoint: DynamoDB Local for the whole run.
  process.env['AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED'] = 'true';
  process.env['AWS_REGION'] ??= 'local';
  const local = await benchDynamoDb({ log: progress });
  try {
    for (const size of dynamoSizes) {
      const db = await onDynamoDb(local.endpoint, size);
      console.log(`\nOn DynamoDB Local, ${db.size} companies`);
      console.log(
        `full recompute job (read every section, write every list): ${db.full.companies} lists from ${db.full.blocks} blocks, ${db.full.seconds.toFixed(1)} s`,
      );
      console.log(
        `one changed company (derivation + the import's completion): ${db.change.companies} lists recomputed, ` +
          `${db.change.seconds.toFixed(3)} s  ${pass(db.change.seconds <= BUDGET.changeSeconds)} (budget ≤ ${BUDGET.changeSeconds} s)`,
      );
    }
  } finally {
    local.stop();
  }
}

if (require.main === module) {
  main().catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}
