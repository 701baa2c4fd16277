/**
 * The import at scale (contract §11.2, lib/import/engine.ts) as its state machine runs it: a gzip file
 * in the import bucket (a local S3 speaking S3's protocol), split by company, its partitions imported
 * at once, then the completion and the report. It must end exactly as one `npm run import` of the file:
 * the same verdict for every line, the same figures, the same stored items.
 */
import { randomUUID } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { generateDemoData } from '../fixtures/demo-data/companies';
import { ensureTable } from '../../infra/local/dynamodb';
import { importBucket } from '../../lib/import/bucket';
import { completeImportRun, importPartition, splitImportFile } from '../../lib/import/engine';
import { formatSummary, importCompanies, type ImportSummary } from '../../lib/import/import';
import { workers } from '../../lib/routes';
import { withDeclaredAccess } from '../../lib/storage/access';
import { dynamodb } from '../../lib/storage/client';
import { useLocalS3 } from '../support/local-s3';
import { useFreshTable } from '../support/table';

const BUCKET = 'company-data-imports';
useLocalS3(BUCKET);
const engineTable = useFreshTable();
jest.setTimeout(240_000);

const records = generateDemoData({ companies: 400 });
const json = (value: unknown) => JSON.stringify(value);
/** The demo file with what a real file brings: blank, broken, invalid and repeated lines. */
const LINES = [
  // An invalid first occurrence does not count: the valid line of the same company later is imported.
  json({ ...records[20], name: 42 }),
  ...records.slice(0, 150).map(json),
  '',
  'not json at all',
  json({ ...records[3], companyNumber: '0000000000' }),
  // The same company again, its number written another way: the first one wins.
  json({ ...records[10], companyNumber: ` ${records[10]!.companyNumber} `, name: 'Second Line BV' }),
  '   ',
  ...records.slice(150).map(json),
  json({ ...records[399], name: 'Repeated At The End' }),
];
const FILE = gzipSync(LINES.join('\n') + '\n');
const AS_OF = '2026-11-20';

/**
 * Every item of the table, without what names the run that wrote it, nor the relationships items'
 * revisions (they count writes, which depend on how the companies were batched).
 */
async function storedItems(table: string): Promise<string[]> {
  const items: Array<Record<string, unknown>> = [];
  let start: Record<string, unknown> | undefined;
  do {
    const page = await dynamodb().send(new ScanCommand({ TableName: table, ExclusiveStartKey: start }));
    items.push(...(page.Items ?? []));
    start = page.LastEvaluatedKey;
  } while (start);
  // A run that ends whole marks itself done (lib/import/store.ts): one mark per partition's run.
  return items
    .filter((item) => item['entity'] !== 'ImportRunDone')
    .map(({ changeId: _run, rev: _rev, ...item }) => JSON.stringify(item, Object.keys(item).sort()))
    .map((text) => text.replace(/#[0-9a-f]{8}\.\d+"/g, '#<change>"'))
    .sort();
}

const withoutSeconds = ({ seconds: _seconds, ...figures }: ImportSummary) => figures;

/** A step as its worker runs on AWS: every storage call checked against the worker's declaration. */
const underDeclaration = <T>(workerId: keyof typeof workers, run: () => Promise<T>) =>
  withDeclaredAccess(workers[workerId].storage, run);

describe('the import engine', () => {
  let reference: { report: string[]; summary: ImportSummary; items: string[] };

  beforeAll(async () => {
    // One run of the import over the whole file, in a table of its own: what the engine must give.
    const table = `reference-${randomUUID()}`;
    await ensureTable(process.env['DYNAMODB_ENDPOINT']!, table);
    const engine = process.env['TABLE_NAME'];
    process.env['TABLE_NAME'] = table;
    try {
      async function* lines() {
        yield* LINES;
      }
      const rejected: string[] = [];
      const summary = await importCompanies(lines(), {
        asOf: AS_OF,
        onRejected: (line, reason) => rejected.push(`line ${line}: ${reason}`),
      });
      reference = { report: [...rejected, formatSummary(summary)], summary, items: await storedItems(table) };
    } finally {
      process.env['TABLE_NAME'] = engine;
    }
  });

  it('imports a dropped file in parallel partitions exactly as one run of the import', async () => {
    const files = importBucket(BUCKET);
    const key = `incoming/${AS_OF}/companies.jsonl.gz`;
    await files.write(key, FILE);
    const run = { run: `test-${randomUUID().slice(0, 8)}`, key, startedAt: new Date().toISOString() };

    const split = await underDeclaration('importSplit', () => splitImportFile(files, run, { partitions: 5 }));
    expect(split.asOf).toBe(AS_OF);
    expect(split.partitions).toEqual([0, 1, 2, 3, 4]);
    // The Distributed Map: every partition at once.
    await Promise.all(
      split.partitions.map((partition) =>
        underDeclaration('importPartition', () => importPartition(files, { ...split, partition })),
      ),
    );
    const done = await underDeclaration('importComplete', () => completeImportRun(files, split));

    expect(withoutSeconds(done.summary)).toEqual(withoutSeconds(reference.summary));
    expect(done.summary).toMatchObject({ read: 405, rejected: 5, created: 400 });
    const report = done.text.split('\n');
    expect(report.slice(0, -1)).toEqual(reference.report.slice(0, -1));
    expect(report.at(-1)).toMatch(
      /^read 405, imported 400 \(new 400, changed 0, unchanged 0\), rejected 5, /,
    );
    expect(await storedItems(engineTable.name)).toEqual(reference.items);

    // The report is in the bucket; the run's work files are gone.
    expect(done.reportKey).toBe(`reports/${AS_OF}/companies.jsonl.gz.${run.run}.txt`);
    expect(await files.list('reports/')).toEqual([done.reportKey]);
    expect(await files.list(`work/${run.run}/`)).toEqual([]);
  });

  it('changes nothing when the same file is dropped again', async () => {
    const files = importBucket(BUCKET);
    const before = await storedItems(engineTable.name);
    const run = {
      run: `again-${randomUUID().slice(0, 8)}`,
      key: `incoming/${AS_OF}/companies.jsonl.gz`,
      startedAt: new Date().toISOString(),
    };
    const split = await underDeclaration('importSplit', () => splitImportFile(files, run, { partitions: 3 }));
    for (const partition of split.partitions) {
      await underDeclaration('importPartition', () => importPartition(files, { ...split, partition }));
    }
    const { summary } = await underDeclaration('importComplete', () => completeImportRun(files, split));

    expect(summary).toMatchObject({ read: 405, imported: 400, unchanged: 400, rejected: 5, updates: 0 });
    expect(await storedItems(engineTable.name)).toEqual(before);
  });
});
