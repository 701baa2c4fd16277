/**
 * The import at scale (contract §11.2, lib/import/engine.ts) as its state machine runs it: a gzip file
 * in the import bucket (a local S3 speaking S3's protocol), split by company, its partitions imported
 * at once, the lookalikes recomputed in shards (test/support/import-engine.ts), then the completion
 * and the report. It must end exactly as one `npm run import` of the file:
 * the same verdict for every line, the same figures, the same stored items.
 */
import { randomUUID } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { generateDemoData } from '../fixtures/demo-data/companies';
import { ensureTable } from '../../infra/local/dynamodb';
import { importBucket } from '../../lib/import/bucket';
import { formatSummary, importCompanies, type ImportSummary } from '../../lib/import/import';
import { runImportEngine, storedItems } from '../support/import-engine';
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

const withoutSeconds = ({ seconds: _seconds, ...figures }: ImportSummary) => figures;

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

    // Lookalike shards of at most 60 subjects: the 400 new companies' lists in several shards.
    const { run, split, plan, done } = await runImportEngine(files, key, {
      partitions: 5,
      shardSubjects: 60,
    });
    expect(split.asOf).toBe(AS_OF);
    expect(split.partitions).toEqual([0, 1, 2, 3, 4]);
    expect(plan.subjects).toBe(400);
    expect(plan.shards.length).toBeGreaterThan(plan.sections);
    expect(plan.shards.every(({ from, to }) => to - from <= 60)).toBe(true);

    expect(withoutSeconds(done.summary)).toEqual(withoutSeconds(reference.summary));
    expect(done.summary).toMatchObject({ read: 405, rejected: 5, created: 400 });
    const report = done.text.split('\n');
    expect(report.slice(0, -1)).toEqual(reference.report.slice(0, -1));
    expect(report.at(-1)).toMatch(
      /^read 405, imported 400 \(new 400, changed 0, unchanged 0\), rejected 5, /,
    );
    expect(await storedItems(engineTable.name)).toEqual(reference.items);

    // The report is in the bucket; the run's work files (the lookalike snapshots too) are gone.
    expect(done.reportKey).toBe(`reports/${AS_OF}/companies.jsonl.gz.${run.run}.txt`);
    expect(await files.list('reports/')).toEqual([done.reportKey]);
    expect(await files.list(`work/${run.run}/`)).toEqual([]);
  });

  it('changes nothing when the same file is dropped again', async () => {
    const files = importBucket(BUCKET);
    const before = await storedItems(engineTable.name);
    const { plan, done } = await runImportEngine(files, `incoming/${AS_OF}/companies.jsonl.gz`, {
      partitions: 3,
    });

    expect(done.summary).toMatchObject({ read: 405, imported: 400, unchanged: 400, rejected: 5, updates: 0 });
    // Nothing marked: no lookalike lease taken, nothing planned.
    expect(plan).toEqual({
      round: 1,
      planned: false,
      waitForLease: false,
      shards: [],
      sections: 0,
      subjects: 0,
      marks: 0,
    });
    expect(await storedItems(engineTable.name)).toEqual(before);
  });
});
