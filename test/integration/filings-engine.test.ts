/**
 * (ext) Financial filings on AWS (contract §11.4, §11.5.11; lib/filings/engine.ts): the sample CBSO
 * filings (as a ZIP, and one filing's pair dropped in two steps) under `filings/cbso/` and the French
 * ratios file under `filings/inpi-ratios/` in the import bucket (a local S3), imported by the engine's
 * steps as its state machine runs them (test/support/import-engine.ts), in partitions of a company or
 * two. Each must end exactly as `npm run import -- --format cbso|inpi-ratios` of the same files into a
 * table of its own, seeded alike: the same rejections, skipped and summary lines, the same stored items.
 */
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import yazl from 'yazl';
import { ensureTable } from '../../infra/local/dynamodb';
import type { CompanyRef } from '../../lib/companies/identifiers';
import { importBucket } from '../../lib/import/bucket';
import { PAIR_WAIT_MS } from '../../lib/import/registry-engine';
import { runCli, type CliRun } from '../support/cli';
import { runFilingDrop, storedItems } from '../support/import-engine';
import { useLocalS3 } from '../support/local-s3';
import { companyRecord } from '../support/records';
import { useFreshTable } from '../support/table';

const BUCKET = 'company-data-filing-imports';
useLocalS3(BUCKET);
const engineTable = useFreshTable();
jest.setTimeout(300_000);

const FIXTURES = join(__dirname, '..', 'fixtures', 'filings');
const CORRECTION = '2024-00000202';

const companies: CompanyRef[] = [
  { country: 'BE', companyNumber: '0712345630' },
  { country: 'BE', companyNumber: '0654321022' },
  { country: 'BE', companyNumber: '0555123476' },
  { country: 'BE', companyNumber: '0999888767' },
  { country: 'FR', companyNumber: '732829320' },
  { country: 'FR', companyNumber: '401234562' },
];
const SEEDED = companies
  .map((ref, n) =>
    companyRecord({
      ...ref,
      name: `Filer ${n}`,
      vatNumber: null,
      website: null,
      financials: [],
      shareholders: [],
      contacts: [],
    }),
  )
  .map((record) => JSON.stringify(record))
  .join('\n');

let scratch: string;
let referenceTable: string;
beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'filings-engine-'));
  referenceTable = `reference-${randomUUID()}`;
  await ensureTable(process.env['DYNAMODB_ENDPOINT']!, referenceTable);
  for (const table of [engineTable.name, referenceTable]) {
    const seeded = await runCli('infra/cli/import.ts', ['-', '--as-of', '2024-01-01'], table, SEEDED);
    expect(seeded.code).toBe(0);
  }
});
afterAll(() => rm(scratch, { recursive: true, force: true }));

const today = () => new Date().toISOString().slice(0, 10);
const command = (format: string, path: string) =>
  runCli('infra/cli/import.ts', ['--format', format, path, '--as-of', today()], referenceTable);

/** What the command printed, as the engine's report writes it: rejections, skipped line, summary. */
function commandReport({ stdout, stderr }: CliRun): string[] {
  const rejections = stderr.split('\n').filter((line) => / line \d+: /.test(line));
  const printed = stdout.split('\n').filter((line) => /^(skipped|read) /.test(line));
  return [...rejections.sort(), ...printed].map(withoutTiming);
}
const withoutTiming = (line: string) => line.replace(/, in [\d.]+ s \(\d+ companies\/s\)$/, '');

describe('filings dropped in the import bucket', () => {
  const files = () => importBucket(BUCKET);

  it('imports a ZIP of CBSO filings under filings/cbso/ in partitions exactly as the command does', async () => {
    const zip = new yazl.ZipFile();
    const folder = join(FIXTURES, 'cbso');
    for (const name of await readdir(folder)) zip.addFile(join(folder, name), name);
    zip.end();
    const path = join(scratch, 'cbso-2024.zip');
    const out = createWriteStream(path);
    zip.outputStream.pipe(out);
    await once(out, 'close');
    await files().write('filings/cbso/cbso-2024.zip', await readFile(path));

    const { split, done } = await runFilingDrop(files(), 'filings/cbso/cbso-2024.zip', { partitionUnits: 1 });
    expect(split).toMatchObject({ status: 'split', format: 'cbso', asOf: today() });
    expect((split as { partitions: number[] }).partitions.length).toBeGreaterThan(2);
    const reference = await command('cbso', path);
    expect(done!.summary.imported).toBeGreaterThan(0);
    expect(done!.text.split('\n').map(withoutTiming)).toEqual(commandReport(reference));
    expect(await storedItems(engineTable.name)).toEqual(await storedItems(referenceTable));
    expect(await files().list('work/')).toEqual([]);
  });

  it("imports one filing's pair, waiting for its accounting file, exactly as the command does", async () => {
    const folder = join(FIXTURES, 'cbso-correction');
    const key = `filings/cbso/2024/${CORRECTION}.reference.json`;
    await files().write(key, await readFile(join(folder, `${CORRECTION}.reference.json`)));
    let now = Date.now();
    const { answers, done } = await runFilingDrop(files(), key, {
      now: () => now,
      wait: async () => {
        now += 60_000;
        await files().write(
          `filings/cbso/2024/${CORRECTION}.accountingData.json`,
          await readFile(join(folder, `${CORRECTION}.accountingData.json`)),
        );
      },
    });
    expect(answers.map((answer) => answer.status)).toEqual(['wait', 'split']);
    const reference = await command('cbso', join(folder, `${CORRECTION}.reference.json`));
    expect(done!.summary.changed).toBe(1);
    expect(done!.text.split('\n').map(withoutTiming)).toEqual(commandReport(reference));
    expect(await storedItems(engineTable.name)).toEqual(await storedItems(referenceTable));

    // Its accounting file alone starts nothing.
    const accounting = await runFilingDrop(files(), `filings/cbso/2024/${CORRECTION}.accountingData.json`);
    expect(accounting.answers).toEqual([
      expect.objectContaining({
        status: 'done',
        reason: 'an accounting file is imported with its reference file',
      }),
    ]);
  });

  it('imports a reference file alone, once its accounting file has not come in time, as the command does', async () => {
    const folder = join(FIXTURES, 'cbso-correction');
    const key = `filings/cbso/alone/${CORRECTION}.reference.json`;
    await files().write(key, await readFile(join(folder, `${CORRECTION}.reference.json`)));
    const startedAt = Date.now();
    let asked = 0;
    const { answers, done } = await runFilingDrop(files(), key, {
      now: () => startedAt + (asked++ === 0 ? 0 : PAIR_WAIT_MS + 60_000),
    });
    expect(answers.map((answer) => answer.status)).toEqual(['wait', 'split']);
    expect(done!.text).toMatch(/^skipped 1 \(no accounting data: 1\)/m);
  });

  it('imports the French ratios file under filings/inpi-ratios/ exactly as the command does', async () => {
    const path = join(FIXTURES, 'inpi-ratios.csv');
    await files().write('filings/inpi-ratios/inpi-ratios.csv', await readFile(path));
    const { split, done } = await runFilingDrop(files(), 'filings/inpi-ratios/inpi-ratios.csv', {
      partitionUnits: 1,
    });
    expect(split).toMatchObject({ status: 'split', format: 'inpi-ratios' });
    const reference = await command('inpi-ratios', path);
    expect(done!.text.split('\n').map(withoutTiming)).toEqual(commandReport(reference));
    expect(await storedItems(engineTable.name)).toEqual(await storedItems(referenceTable));
  });

  it('leaves a report and imports nothing for a file that is no CSV under filings/inpi-ratios/', async () => {
    await files().write('filings/inpi-ratios/ratios.xlsx', Buffer.from('PK'));
    const before = await storedItems(engineTable.name);
    const { answers, done } = await runFilingDrop(files(), 'filings/inpi-ratios/ratios.xlsx');
    expect(done).toBeNull();
    expect(answers).toEqual([
      expect.objectContaining({
        status: 'done',
        reason: 'ratios.xlsx is not a CSV: drop the ratios file as published (…csv)',
      }),
    ]);
    expect(await storedItems(engineTable.name)).toEqual(before);
  });
});
