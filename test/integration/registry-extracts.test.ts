/**
 * (ext) KBO extracts applied over time through the command (contract §11.3, §11.5.2): the sample full
 * extract, then the sample update (a ZIP) applied to the rows kept of each enterprise, in
 * `ExtractNumber` order (an update not above the last applied one is refused, exit 2, nothing written),
 * then a later full extract that no longer holds two enterprises; read back through the API.
 */
import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { cp, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import yazl from 'yazl';
import { handler as getUpdates } from '../../functions/get-legal-entity-updates';
import { getCompanyDetails } from '../../lib/companies/details';
import { getRelationships } from '../../lib/companies/holdings-store';
import { beginExtract } from '../../lib/import/registry-progress';
import { updateRoutes } from '../../lib/updates/routes';
import { runCli } from '../support/cli';
import { call } from '../support/events';
import { companyRecord } from '../support/records';
import { useFreshTable } from '../support/table';

const table = useFreshTable();
jest.setTimeout(240_000);

const FIXTURES = path.join(__dirname, '..', 'fixtures', 'registries');
const FULL = path.join(FIXTURES, 'kbo-full');
const UPDATE = path.join(FIXTURES, 'kbo-update');
const importCli = (...args: string[]) => runCli('infra/cli/import.ts', args, table.name);
const details = async (companyNumber: string) =>
  (await getCompanyDetails({ countryCode: 'BE', companyNumber }, '2026-11-29')).data;

async function updatesOf(companyNumber: string) {
  const legalEntityId = (await getRelationships({ country: 'BE', companyNumber }))!.legalEntityId;
  const response = await call(getUpdates, {
    resource: updateRoutes.getLegalEntityUpdates.path,
    pathParameters: { legalEntityId },
    query: { limit: '20' },
  });
  return (response.body as { data: { updates: Array<{ type: string; time: string }> } }).data.updates;
}

let scratch: string;
beforeAll(async () => {
  scratch = await mkdtemp(path.join(tmpdir(), 'kbo-extracts-'));
});
afterAll(() => rm(scratch, { recursive: true, force: true }));

async function zipOf(folder: string, name: string): Promise<string> {
  const zip = new yazl.ZipFile();
  for (const file of await readdir(folder)) zip.addFile(path.join(folder, file), file);
  zip.end();
  const into = path.join(scratch, name);
  const out = createWriteStream(into);
  zip.outputStream.pipe(out);
  await once(out, 'close');
  return into;
}

/** A copy of a sample extract with another meta.csv, and `edit` applied to its files' text. */
async function variant(
  from: string,
  name: string,
  meta: { number: number; snapshot: string },
  edit: Record<string, (text: string) => string> = {},
): Promise<string> {
  const into = path.join(scratch, name);
  await cp(from, into, { recursive: true });
  const metaText = (await readFile(path.join(into, 'meta.csv'), 'utf8'))
    .replace(/"ExtractNumber","\d+"/, `"ExtractNumber","${meta.number}"`)
    .replace(/"SnapshotDate","[^"]+"/, `"SnapshotDate","${meta.snapshot}"`);
  await writeFile(path.join(into, 'meta.csv'), metaText);
  for (const [file, change] of Object.entries(edit))
    await writeFile(path.join(into, file), change(await readFile(path.join(into, file), 'utf8')));
  return into;
}

const withoutLinesOf =
  (...numbers: string[]) =>
  (text: string) =>
    text
      .split('\n')
      .filter((line) => !numbers.some((number) => line.startsWith(`"${number}"`)))
      .join('\n');

describe('a KBO update extract', () => {
  it('is applied per table to the rows kept: names, a seat, a ceased enterprise, an establishment closed', async () => {
    // A company only JSON Lines knows: no KBO extract touches it.
    const seeded = await runCli(
      'infra/cli/import.ts',
      ['-', '--as-of', '2025-01-01'],
      table.name,
      JSON.stringify(companyRecord({ companyNumber: '0417497106', name: 'Alleen JSON NV' })),
    );
    expect(seeded.code).toBe(0);
    const full = await importCli('--format', 'kbo', FULL);
    expect(full.stderr).toMatch(/importing kbo full extract 127 /);
    expect((await details('0403170701')).activities).toEqual(['41201', '43999', '43320']);
    expect((await details('0712345630')).activities).toEqual(['56101', '56102']);

    const run = await importCli(
      '--format',
      'kbo',
      await zipOf(UPDATE, 'KboOpenData_0128_2025_09_06_Update.zip'),
    );
    expect(run.stderr).toMatch(/importing kbo update extract 128 .*as of 2025-09-06/);
    expect(run.code).toBe(0);
    // Four enterprises touched: three by their own rows, one through its establishment (its kept link).
    expect(run.stdout).toMatch(/^read 4, imported 4 \(new 0, changed 4, unchanged 0\), rejected 0, /m);

    // Every denomination of 0403.170.701 deleted, then its inserted ones: a new name, its commercial name gone.
    expect(await details('0403170701')).toMatchObject({
      name: 'Acme Bouwgroep',
      otherNames: ['Acme Construction', 'ACB'],
      activities: ['41201', '43999', '43320'],
    });
    // The seat moved within Brussels: in French, as the region's language says.
    expect(await details('0410000093')).toMatchObject({
      name: 'Café Bruxellois',
      address: { street: 'Avenue Louise', number: '54', postalCode: '1050', place: 'Ixelles' },
    });
    // Deleted and not inserted again: stopped on the update's snapshot date, its last fields kept.
    expect(await details('0830000096')).toMatchObject({
      name: 'Leuvense Bieren',
      status: 'INACTIVE',
      stoppedSince: '2025-09-06T00:00:00.000Z',
    });
    // Its establishment 2.000.567.887 closed: that establishment's activities are gone with it.
    expect((await details('0712345630')).activities).toEqual(['56102']);

    expect((await updatesOf('0403170701')).map((u) => u.type)).toContain('NAME_CHANGED');
    expect((await updatesOf('0410000093')).map((u) => u.type)).toContain('MOVED');
    expect(await updatesOf('0830000096')).toContainEqual(
      expect.objectContaining({ type: 'STOPPED', time: '2025-09-06' }),
    );
  });

  it('the same update again is refused, exit 2, and writes nothing', async () => {
    const run = await importCli('--format', 'kbo', UPDATE);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(
      /^cannot import: KBO update extract 128 refused: the stage has extract 128 applied/m,
    );
    expect(run.stdout).toBe('');
  });

  it('an update whose number is not above the last applied is refused before anything changes', async () => {
    const older = await variant(
      UPDATE,
      'update-127',
      { number: 127, snapshot: '01-09-2025' },
      { 'denomination_insert.csv': (text) => text.replace('Acme Bouwgroep', 'Acme Terug') },
    );
    const run = await importCli('--format', 'kbo', older);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/extract 127 refused: the stage has extract 128 applied already/);
    expect((await details('0403170701')).name).toBe('Acme Bouwgroep');
  });

  it('an update that skips numbers is applied, with a note of the ones missing', async () => {
    const later = await variant(UPDATE, 'update-131', { number: 131, snapshot: '09-09-2025' });
    const run = await importCli('--format', 'kbo', later);
    expect(run.code).toBe(0);
    expect(run.stderr).toMatch(/note: extracts 129–130 were not applied/);
    // Applied twice over the same rows: nothing changes, nothing is derived.
    expect(run.stdout).toMatch(
      /^read 4, imported 4 \(new 0, changed 0, unchanged 4\), rejected 0, updates 0,/m,
    );
  });
});

describe('a later KBO full extract', () => {
  it('stops the enterprises it no longer holds, on its snapshot date, and only those', async () => {
    const later = await variant(
      FULL,
      'full-132',
      { number: 132, snapshot: '30-09-2025' },
      { 'enterprise.csv': withoutLinesOf('0820.000.089', '0830.000.096') },
    );
    const run = await importCli('--format', 'kbo', later);
    expect(run.stderr).toMatch(/importing kbo full extract 132 .*as of 2025-09-30/);
    expect(await details('0820000089')).toMatchObject({
      name: 'Antwerpse Diamant',
      status: 'INACTIVE',
      stoppedSince: '2025-09-30T00:00:00.000Z',
    });
    expect(await updatesOf('0820000089')).toContainEqual(
      expect.objectContaining({ type: 'STOPPED', time: '2025-09-30' }),
    );
    // Stopped already by the update: its date stays.
    expect((await details('0830000096')).stoppedSince).toBe('2025-09-06T00:00:00.000Z');
    // Still held, or never from KBO: not stopped.
    expect((await details('0403170701')).status).toBe('ACTIVE');
    expect((await details('0417497106')).status).toBe('ACTIVE');

    const again = await importCli('--format', 'kbo', later);
    expect(again.stdout).toMatch(/\(new 0, changed 0, unchanged \d+\)/);
    expect((await details('0820000089')).stoppedSince).toBe('2025-09-30T00:00:00.000Z');
  });

  it('an older full extract is refused: it would take the stage back', async () => {
    const run = await importCli('--format', 'kbo', FULL);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/KBO full extract 127 refused: it is older than extract 132/);
  });
});

describe('a KBO extract cut off', () => {
  it('is resumed by the same extract, and holds back any other until it has', async () => {
    // An import of update 133 that began and never ended.
    expect(await beginExtract({ source: 'kbo', kind: 'update', number: 133 })).toEqual([]);
    const next = await variant(UPDATE, 'update-134', { number: 134, snapshot: '02-10-2025' });
    const refused = await importCli('--format', 'kbo', next);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(
      /extract 134 refused: extract 133 was cut off before it ended; import it again first/,
    );

    const resumed = await importCli(
      '--format',
      'kbo',
      await variant(UPDATE, 'update-133', { number: 133, snapshot: '01-10-2025' }),
    );
    expect(resumed.code).toBe(0);
    expect(resumed.stderr).not.toMatch(/note:/);
    expect((await importCli('--format', 'kbo', next)).code).toBe(0);
  });

  it('an extract whose files are not as published writes nothing and holds back no other', async () => {
    const broken = await variant(
      FULL,
      'full-135',
      { number: 135, snapshot: '31-10-2025' },
      { 'contact.csv': (text) => text.replace('"EntityNumber"', '"Entity"') },
    );
    const run = await importCli('--format', 'kbo', broken);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/^cannot import: contact\.csv line 1: the header lacks EntityNumber/m);
    expect((await details('0403170701')).name).toBe('Acme Bouwgroep');

    const next = await importCli(
      '--format',
      'kbo',
      await variant(FULL, 'full-136', { number: 136, snapshot: '30-11-2025' }),
    );
    expect(next.stderr).toMatch(/importing kbo full extract 136 /);
    expect(next.stderr).not.toMatch(/refused/);
  });
});
