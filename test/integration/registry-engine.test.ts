/**
 * (ext) The registries' files on AWS (contract §11.3, §11.5.11; lib/import/registry-engine.ts): the
 * sample KBO full extract (as its ZIP) dropped under `kbo/`, then the sample update and a later full
 * extract, and the SIRENE stock pair under `sirene/` in the import bucket (a local S3), imported by the
 * engine's steps as its state machine runs them (test/support/import-engine.ts), in partitions of a
 * few units. Each must end exactly as `npm run import -- --format …` of the same files into a table of
 * its own: the same rejections, the same skipped and summary lines, the same stored items (the
 * extract progress among them); a KBO extract out of `ExtractNumber` order is not imported.
 */
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { cp, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import yazl from 'yazl';
import { ensureTable } from '../../infra/local/dynamodb';
import { importBucket } from '../../lib/import/bucket';
import type { SplitFile } from '../../lib/import/engine';
import type { SireneRanges } from '../../lib/import/sirene-ranges';
import { PAIR_WAIT_MS } from '../../lib/import/registry-engine';
import { runCli, type CliRun } from '../support/cli';
import { runRegistryDrop, storedItems } from '../support/import-engine';
import { useLocalS3 } from '../support/local-s3';
import { useFreshTable } from '../support/table';

const BUCKET = 'company-data-registry-imports';
useLocalS3(BUCKET);
const engineTable = useFreshTable();
jest.setTimeout(300_000);

const FIXTURES = join(__dirname, '..', 'fixtures', 'registries');
const KBO_ZIP = 'KboOpenData_0127_2025_09_Full.zip';
const UPDATE_ZIP = 'KboOpenData_0128_2025_09_06_Update.zip';
const UNITS = join(FIXTURES, 'sirene', 'StockUniteLegale_utf8.csv');
const ESTABLISHMENTS = join(FIXTURES, 'sirene', 'StockEtablissement_utf8.csv');

/**
 * The stored items but the registry digests: the command reads its converter's units unmapped and
 * digests their raw values, the engine imports the mapped units of its partitions and digests those
 * (lib/import/registry-digest.ts). Each digest vouches for what its own path reads, so the two differ
 * in their hashes and in the block a rejected item falls in, never in what is stored of a company.
 */
const withoutDigests = (items: string[]) =>
  items.filter((item) => !item.includes('"entity":"RegistryDigest"'));

let scratch: string;
let referenceTable: string;
beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'registry-engine-'));
  referenceTable = `reference-${randomUUID()}`;
  await ensureTable(process.env['DYNAMODB_ENDPOINT']!, referenceTable);
});
afterAll(() => rm(scratch, { recursive: true, force: true }));

async function zipOf(folder: string, names: string[] | null, into: string): Promise<string> {
  const zip = new yazl.ZipFile();
  for (const name of names ?? (await readdir(folder))) zip.addFile(join(folder, name), name);
  zip.end();
  const out = createWriteStream(into);
  zip.outputStream.pipe(out);
  await once(out, 'close');
  return into;
}

/**
 * What the command printed, as the engine's report writes it: rejections by file and line (the command
 * prints a repeat when its batch is judged, the others as they are read), skipped line, summary (no timing).
 */
function commandReport({ stdout, stderr }: CliRun): string[] {
  const at = (line: string) => /^(.*) line (\d+): /.exec(line)!;
  const rejections = stderr
    .split('\n')
    .filter((line) => / line \d+: /.test(line))
    .sort((a, b) => at(a)[1]!.localeCompare(at(b)[1]!) || Number(at(a)[2]) - Number(at(b)[2]));
  const printed = stdout.split('\n').filter((line) => /^(skipped|read) /.test(line));
  return [...rejections, ...printed].map(withoutTiming);
}
const withoutTiming = (line: string) => line.replace(/, in [\d.]+ s \(\d+ companies\/s\)$/, '');

async function engineReport(text: string): Promise<string[]> {
  return text.split('\n').map(withoutTiming);
}

describe('registry files dropped in the import bucket', () => {
  const files = () => importBucket(BUCKET);

  it('imports a KBO full ZIP under kbo/ in partitions exactly as the command does', async () => {
    const zip = await zipOf(join(FIXTURES, 'kbo-full'), null, join(scratch, KBO_ZIP));
    await files().write(`kbo/${KBO_ZIP}`, await readFile(zip));

    const command = await runCli('infra/cli/import.ts', ['--format', 'kbo', zip], referenceTable);
    expect(command.code).toBe(1); // the sample holds an invalid number on purpose
    const { split, done, reports } = await runRegistryDrop(files(), `kbo/${KBO_ZIP}`, {
      partitionUnits: 3,
    });

    expect(split).toMatchObject({ status: 'split', format: 'kbo', asOf: '2025-08-30' });
    expect((split as SplitFile).partitions.length).toBeGreaterThan(2);
    // No partition holds more than its units (a rejected one rides with the unit before it).
    for (const report of reports!) expect(report.summary.read).toBeLessThanOrEqual(4);
    expect(await engineReport(done!.text)).toEqual(commandReport(command));
    expect(withoutDigests(await storedItems(engineTable.name))).toEqual(
      withoutDigests(await storedItems(referenceTable)),
    );
    expect(done!.reportKey).toMatch(new RegExp(`^reports/kbo/${KBO_ZIP}\\.test-[0-9a-f]{8}\\.txt$`));
    expect(await files().list(`work/`)).toEqual([]);
  });

  it('changes nothing when the same ZIP is dropped again', async () => {
    const before = await storedItems(engineTable.name);
    const { done } = await runRegistryDrop(files(), `kbo/${KBO_ZIP}`, { partitionUnits: 4 });
    expect(done!.summary).toMatchObject({ created: 0, changed: 0, updates: 0 });
    expect(done!.summary.unchanged).toBe(done!.summary.imported);
    expect(await storedItems(engineTable.name)).toEqual(before);
  });

  it('applies a KBO update ZIP dropped after the full one exactly as the command does', async () => {
    const zip = await zipOf(join(FIXTURES, 'kbo-update'), null, join(scratch, UPDATE_ZIP));
    await files().write(`kbo/${UPDATE_ZIP}`, await readFile(zip));

    const command = await runCli('infra/cli/import.ts', ['--format', 'kbo', zip], referenceTable);
    expect(command.stderr).toMatch(/importing kbo update extract 128 /);
    const { split, done } = await runRegistryDrop(files(), `kbo/${UPDATE_ZIP}`, { partitionUnits: 2 });

    expect(split).toMatchObject({
      status: 'split',
      format: 'kbo',
      asOf: '2025-09-06',
      extract: { source: 'kbo', kind: 'update', number: 128 },
    });
    expect(done!.summary.changed).toBeGreaterThan(0);
    expect(await engineReport(done!.text)).toEqual(commandReport(command));
    // The rows kept, the companies stopped and the extract applied (its progress item) alike.
    expect(withoutDigests(await storedItems(engineTable.name))).toEqual(
      withoutDigests(await storedItems(referenceTable)),
    );
  });

  it.each([
    [
      'the same update again',
      UPDATE_ZIP,
      'not imported: KBO update extract 128 refused: the stage has extract 128 applied already, and ' +
        'updates apply in ExtractNumber order (nothing was written)',
    ],
    [
      'the full extract before it',
      KBO_ZIP,
      'not imported: KBO full extract 127 refused: it is older than extract 128, already applied ' +
        '(nothing was written)',
    ],
  ])('does not import %s: a report says why, nothing is written', async (_, name, expected) => {
    const before = await storedItems(engineTable.name);
    const { answers, done } = await runRegistryDrop(files(), `kbo/${name}`);
    expect(done).toBeNull();
    const [answer] = answers as unknown as [{ status: string; reportKey: string }];
    expect(answer.status).toBe('done');
    expect((await streamText((await files().read(answer.reportKey)).body)).trimEnd()).toBe(expected);
    expect(await storedItems(engineTable.name)).toEqual(before);
    expect(await files().list('work/')).toEqual([]);
  });

  it('stops what a later full ZIP no longer holds exactly as the command does', async () => {
    const folder = join(scratch, 'full-132');
    await cp(join(FIXTURES, 'kbo-full'), folder, { recursive: true });
    const meta = await readFile(join(folder, 'meta.csv'), 'utf8');
    await writeFile(
      join(folder, 'meta.csv'),
      meta
        .replace(/"ExtractNumber","\d+"/, '"ExtractNumber","132"')
        .replace(/"SnapshotDate","[^"]+"/, '"SnapshotDate","30-09-2025"'),
    );
    const enterprises = await readFile(join(folder, 'enterprise.csv'), 'utf8');
    await writeFile(
      join(folder, 'enterprise.csv'),
      enterprises
        .split('\n')
        .filter((line) => !line.startsWith('"0820.000.089"'))
        .join('\n'),
    );
    const name = 'KboOpenData_0132_2025_10_Full.zip';
    const zip = await zipOf(folder, null, join(scratch, name));
    await files().write(`kbo/${name}`, await readFile(zip));

    const command = await runCli('infra/cli/import.ts', ['--format', 'kbo', zip], referenceTable);
    const { done } = await runRegistryDrop(files(), `kbo/${name}`, { partitionUnits: 3 });
    expect(await engineReport(done!.text)).toEqual(commandReport(command));
    const stored = await storedItems(engineTable.name);
    expect(withoutDigests(stored)).toEqual(withoutDigests(await storedItems(referenceTable)));
    const company = stored.find(
      (item) => item.includes('"pk":"COMPANY#BE#0820000089"') && item.includes('"sk":"COMPANY"'),
    );
    expect(company).toMatch(/"stoppedOn":"2025-09-30"/);
  });

  it('imports a SIRENE units file with the establishments file of its month, waiting for it to arrive', async () => {
    await files().write('sirene/2026-11/StockUniteLegale_utf8.csv', await readFile(UNITS));
    let now = Date.now();
    const { answers, split, done } = await runRegistryDrop(
      files(),
      'sirene/2026-11/StockUniteLegale_utf8.csv',
      {
        partitionUnits: 2,
        // Ranges of about 3 units: the pair is cut by siren across several split workers.
        rangeUnits: 3,
        sampleEvery: 1,
        now: () => now,
        // The state machine waits a minute between two asks: the establishments file lands meanwhile.
        wait: async () => {
          now += 60_000;
          await files().write('sirene/2026-11/StockEtablissement_utf8.csv', ESTABLISHMENTS_TEXT);
        },
      },
    );
    expect(answers.map((answer) => answer.status)).toEqual(['wait', 'ranges', 'split']);
    expect((answers[1] as SireneRanges).ranges.length).toBeGreaterThan(2);
    expect(split).toMatchObject({ status: 'split', format: 'sirene' });
    expect(split).not.toHaveProperty('note');

    const command = await runCli(
      'infra/cli/import.ts',
      ['--format', 'sirene', UNITS, '--establishments', ESTABLISHMENTS],
      referenceTable,
    );
    expect(await engineReport(done!.text)).toEqual(commandReport(command));
    expect(done!.text).toMatch(/^skipped \d+ \(name withheld: \d+/m);
    expect(withoutDigests(await storedItems(engineTable.name))).toEqual(
      withoutDigests(await storedItems(referenceTable)),
    );
  });

  it('imports a units file alone, without addresses, once its establishments file has not come in time', async () => {
    await files().write('sirene/2026-12/StockUniteLegale_utf8_2026-12.csv', await readFile(UNITS));
    const startedAt = Date.now();
    let asked = 0;
    const { answers, done } = await runRegistryDrop(
      files(),
      'sirene/2026-12/StockUniteLegale_utf8_2026-12.csv',
      {
        rangeUnits: 4,
        sampleEvery: 2,
        // The second ask comes after the wait is over.
        now: () => startedAt + (asked++ === 0 ? 0 : PAIR_WAIT_MS + 60_000),
      },
    );
    expect(answers.map((answer) => answer.status)).toEqual(['wait', 'ranges', 'split']);
    const command = await runCli('infra/cli/import.ts', ['--format', 'sirene', UNITS], referenceTable);
    const [note, ...rest] = await engineReport(done!.text);
    expect(note).toBe(
      'StockUniteLegale_utf8_2026-12.csv imported without establishments (no address): ' +
        'no StockEtablissement file of 2026-12 beside it',
    );
    // The rejections name the file as it was dropped; the command's, as it was given.
    expect(
      rest.map((line) => line.replace('StockUniteLegale_utf8_2026-12.csv', 'StockUniteLegale_utf8.csv')),
    ).toEqual(commandReport(command));
    expect(withoutDigests(await storedItems(engineTable.name))).toEqual(
      withoutDigests(await storedItems(referenceTable)),
    );
  });

  it('starts nothing for an establishments file alone', async () => {
    await files().write('sirene/2027-01/StockEtablissement_utf8.csv', ESTABLISHMENTS_TEXT);
    const before = await storedItems(engineTable.name);
    const { answers, done } = await runRegistryDrop(files(), 'sirene/2027-01/StockEtablissement_utf8.csv');
    expect(answers).toEqual([
      {
        status: 'done',
        key: 'sirene/2027-01/StockEtablissement_utf8.csv',
        reason: 'an establishments file is imported with its units file',
      },
    ]);
    expect(done).toBeNull();
    expect(await storedItems(engineTable.name)).toEqual(before);
  });

  it.each([
    [
      'a KBO CSV instead of its ZIP',
      'kbo/enterprise.csv',
      () => readFile(join(FIXTURES, 'kbo-full', 'enterprise.csv')),
      'not imported: enterprise.csv is not a ZIP: drop the KBO extract as published (KboOpenData_…_Full.zip)',
    ],
    [
      'a KBO ZIP without meta.csv',
      'kbo/KboOpenData_0128_2025_10_Full.zip',
      async () =>
        readFile(
          await zipOf(
            join(FIXTURES, 'kbo-full'),
            ['enterprise.csv', 'denomination.csv'],
            join(scratch, 'no-meta.zip'),
          ),
        ),
      /^not imported: .*meta\.csv/,
    ],
    [
      'a SIRENE units file out of siren order',
      'sirene/unordered/StockUniteLegale_utf8.csv',
      async () => {
        const [header, first, second, ...rest] = (await readFile(UNITS, 'utf8')).split(/(?<=\n)/);
        return Buffer.from([header, second, first, ...rest].join(''));
      },
      /^not imported: StockUniteLegale_utf8\.csv line 3: \d{9} comes after \d{9} \(line 2\)/,
    ],
    [
      'a file under sirene/ that is no stock file',
      'sirene/2026-11/notes.txt',
      async () => Buffer.from('hello'),
      'not imported: notes.txt is neither a StockUniteLegale nor a StockEtablissement file',
    ],
  ])('leaves a report and imports nothing for %s', async (_, key, body, expected) => {
    await files().write(key, await body());
    const before = await storedItems(engineTable.name);
    const { answers, done } = await runRegistryDrop(files(), key);
    expect(done).toBeNull();
    const [answer] = answers as unknown as [{ status: string; reportKey: string }];
    expect(answer.status).toBe('done');
    const report = (await streamText((await files().read(answer.reportKey)).body)).trimEnd();
    if (typeof expected === 'string') expect(report).toBe(expected);
    else expect(report).toMatch(expected);
    expect(await storedItems(engineTable.name)).toEqual(before);
  });
});

let ESTABLISHMENTS_TEXT: Buffer;
beforeAll(async () => {
  ESTABLISHMENTS_TEXT = await readFile(ESTABLISHMENTS);
});

async function streamText(body: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of body) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
