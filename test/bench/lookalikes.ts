/**
 * `npm run bench:lookalikes`: the quality and cost of the lookalikes (contract §6.3, issue budgets).
 *
 * Companies are generated with a fixed seed: noise (NACE codes over 40 divisions of very unequal size,
 * 600 places in three countries, sizes spread over five orders of magnitude, any age and health) and
 * planted families of 2 to 5 near-identical companies (the same 5-digit activity and place, employees
 * and total assets within ±15 % of the family's, age and health free). Then:
 *
 * 1. In memory, per size (30,000 and 100,000 by default), in a child process of its own: the full
 *    recompute (every block, every list) — time and peak memory (max RSS of the child) — and the mean
 *    family recall@5: the share of a member's family found in its top 5, averaged over members.
 * 2. On DynamoDB Local (30,000 and 100,000 by default): the full recompute job as deployed (read every block, write
 *    every list), then one company changed and the import's completion recomputing what it touches.
 *
 *   npm run bench:lookalikes
 *   npm run bench:lookalikes -- --sizes 30000,100000,300000 --dynamodb-sizes 3000
 *   DYNAMODB_ENDPOINT=http://localhost:8000 npm run bench:lookalikes   an existing DynamoDB Local
 *
 * Figures only: it exits 0 whatever they are.
 */
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import type { Country } from '../../lib/companies/identifiers';
import { computeLists } from '../../lib/lookalikes/compute';
import { blockOf, type LookalikeFeatures } from '../../lib/lookalikes/features';

const BUDGET = { recall: 0.95, fullSeconds: 300, fullMb: 2048, changeSeconds: 1 } as const;
/** The chance that a drawn company founds a family of 2 to 5 (about 10 % of the companies are in one). */
const FAMILY_CHANCE = 0.03;
const COUNTRIES: Country[] = ['BE', 'NL', 'FR'];

interface Generated {
  companies: LookalikeFeatures[];
  /** Family number of each company, -1 for noise. */
  family: Int32Array;
}

/** mulberry32: small, fast, seeded. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function generate(count: number, seed = 7): Generated {
  const random = rng(seed);
  const int = (min: number, max: number) => min + Math.floor(random() * (max - min + 1));
  // 40 divisions, the biggest about 14 % of the companies (like wholesale in the demo data).
  const divisions = Array.from({ length: 40 }, (_, i) => String(10 + i * 2));
  const weights = divisions.map((_, i) => 1 / (i + 1));
  const totalWeight = weights.reduce((a, b) => a + b, 0);
  const pickDivision = () => {
    let r = random() * totalWeight;
    for (let i = 0; i < divisions.length; i++) if ((r -= weights[i]!) <= 0) return divisions[i]!;
    return divisions[0]!;
  };
  const companies: LookalikeFeatures[] = [];
  const family = new Int32Array(count).fill(-1);
  const serials = { BE: 0, NL: 0, FR: 0 };
  const numberFor = (country: Country) => {
    const serial = ++serials[country];
    // Unique, well-formed enough for the tie order (numbers are not validated here).
    return country === 'BE'
      ? `0${String(serial).padStart(9, '0')}`
      : country === 'NL'
        ? String(10_000_000 + serial)
        : String(100_000_000 + serial);
  };
  const noise = (): Omit<LookalikeFeatures, 'country' | 'companyNumber' | 'name'> & { country: Country } => {
    const country = COUNTRIES[int(0, 2)]!;
    const employees = Math.floor(10 ** (random() * 3.7)) - 1;
    return {
      country,
      place: `${country}-place-${int(0, 199)}`,
      activity: `${pickDivision()}${int(1, 9)}${int(0, 9)}${int(0, 1)}`,
      employees,
      totalAssets: Math.round((employees + 1) * 60_000 * 10 ** (random() * 1.6 - 0.8)),
      foundedYear: int(1950, 2024),
      healthIndicator: int(0, 10),
    };
  };
  let families = 0;
  while (companies.length < count) {
    const base = noise();
    const members = random() < FAMILY_CHANCE ? int(2, 5) : 1;
    const id = members > 1 ? families++ : -1;
    for (let m = 0; m < members && companies.length < count; m++) {
      const jitter = () => 0.85 + random() * 0.3;
      family[companies.length] = id;
      companies.push({
        ...base,
        companyNumber: numberFor(base.country),
        name: `Company ${companies.length}`,
        ...(members > 1
          ? {
              employees: Math.round((base.employees ?? 0) * jitter()),
              totalAssets: Math.round((base.totalAssets ?? 0) * jitter()),
              foundedYear: int(1950, 2024),
              healthIndicator: int(0, 10),
            }
          : {}),
      });
    }
  }
  return { companies, family };
}

/** The full recompute in memory, block by block, keeping only each family member's top 5. */
function recomputeInMemory({ companies, family }: Generated) {
  const blocks = new Map<string, number[]>();
  companies.forEach((c, i) => {
    const block = blockOf(c);
    const members = blocks.get(block) ?? [];
    members.push(i);
    blocks.set(block, members);
  });
  const top5 = new Map<number, number[]>();
  let lists = 0;
  let pairs = 0;
  const started = performance.now();
  for (const members of blocks.values()) {
    pairs += (members.length * (members.length - 1)) / 2;
    computeLists(
      members.map((i) => companies[i]!),
      'all',
      (subject, list) => {
        lists++;
        const company = members[subject]!;
        if (family[company]! >= 0)
          top5.set(
            company,
            list.slice(0, 5).map((l) => members[l.index]!),
          );
      },
    );
  }
  const seconds = (performance.now() - started) / 1000;
  // Recall@5 of a member: the share of the rest of its family found in its top 5.
  const familyOf = new Map<number, number[]>();
  family.forEach((f, i) => f >= 0 && familyOf.set(f, [...(familyOf.get(f) ?? []), i]));
  const recalls: number[] = [];
  for (const [company, top] of top5) {
    const others = familyOf.get(family[company]!)!.filter((i) => i !== company);
    recalls.push(others.filter((i) => top.includes(i)).length / others.length);
  }
  return {
    companies: companies.length,
    blocks: blocks.size,
    largestBlock: Math.max(...[...blocks.values()].map((m) => m.length)),
    pairs,
    lists,
    families: familyOf.size,
    familyMembers: recalls.length,
    recallAt5: recalls.reduce((a, b) => a + b, 0) / recalls.length,
    seconds,
  };
}

/** DynamoDB Local for the whole run: the storage client is built once, for one endpoint. */
async function dynamoDbLocal(): Promise<{ endpoint: string; stop: () => void }> {
  process.env['AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED'] = 'true';
  process.env['AWS_REGION'] ??= 'local';
  const existing = process.env['DYNAMODB_ENDPOINT'];
  if (existing) return { endpoint: existing, stop: () => undefined };
  const { startDynamoDbLocal, freePort } = await import('../../infra/local/dynamodb');
  progress('starting DynamoDB Local');
  const local = await startDynamoDbLocal({ port: await freePort() });
  process.env['DYNAMODB_ENDPOINT'] = local.endpoint;
  return local;
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
    const { companies } = generate(size);
    progress(`DynamoDB Local: storing the features of ${size} companies`);
    await batchPut(
      table,
      companies.map((c) => featuresItem(c, 0)),
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

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { sizes: { type: 'string' }, 'dynamodb-sizes': { type: 'string' }, child: { type: 'string' } },
  });
  if (values.child) {
    // One size, in memory, in a process of its own so that its peak memory is its own.
    const result = recomputeInMemory(generate(Number(values.child)));
    const maxRssMb = process.resourceUsage().maxRSS / 1024;
    process.stdout.write(`${JSON.stringify({ ...result, maxRssMb })}\n`);
    return;
  }
  const sizes = (values.sizes ?? '30000,100000').split(',').map(Number);
  const dynamoSizes = (values['dynamodb-sizes'] ?? '30000,100000').split(',').map(Number);
  if ([...sizes, ...dynamoSizes].some((n) => !Number.isInteger(n) || n < 2))
    throw new Error('sizes are integers ≥ 2');

  console.log('Full recompute in memory (every block, every list), one child process per size');
  console.log(
    `Budgets: recall@5 ≥ ${BUDGET.recall}; 100,000 companies ≤ ${BUDGET.fullSeconds} s and ≤ ${BUDGET.fullMb} MB\n`,
  );
  console.log(
    'companies  blocks  largest block  pairs scored  families (members)  recall@5  seconds  peak MB  budget',
  );
  for (const size of sizes) {
    progress(`in memory: ${size} companies`);
    const child = spawnSync(process.execPath, [...process.execArgv, __filename, '--child', String(size)], {
      encoding: 'utf8',
      maxBuffer: 1 << 20,
    });
    if (child.status !== 0) throw new Error(`child for ${size} failed: ${child.stderr}`);
    const r = JSON.parse(child.stdout.trim().split('\n').pop()!) as ReturnType<typeof recomputeInMemory> & {
      maxRssMb: number;
    };
    const ok = r.recallAt5 >= BUDGET.recall && r.seconds <= BUDGET.fullSeconds && r.maxRssMb <= BUDGET.fullMb;
    console.log(
      [
        String(r.companies).padStart(9),
        String(r.blocks).padStart(6),
        String(r.largestBlock).padStart(13),
        String(r.pairs).padStart(12),
        `${r.families} (${r.familyMembers})`.padStart(18),
        r.recallAt5.toFixed(4).padStart(8),
        r.seconds.toFixed(1).padStart(7),
        r.maxRssMb.toFixed(0).padStart(7),
        `  ${pass(ok)}`,
      ].join('  '),
    );
  }

  const local = await dynamoDbLocal();
  try {
    for (const size of dynamoSizes) {
      const db = await onDynamoDb(local.endpoint, size);
      console.log(`\nOn DynamoDB Local, ${db.size} companies`);
      console.log(
        `full recompute job (read every block, write every list): ${db.full.companies} lists in ${db.full.blocks} blocks, ${db.full.seconds.toFixed(1)} s`,
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
