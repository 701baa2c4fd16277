/**
 * CBSO filings from a ZIP as the web services' batch extracts deliver them (contract §11.4,
 * `registries.md` §3.2), against the same filings from a folder: any order and layout of members,
 * stored or deflated, in a sub-folder of the ZIP; a damaged member and a file that is no ZIP.
 */
import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import yazl from 'yazl';
import { cbsoFilings, NO_ACCOUNTING_DATA, UNREADABLE } from '../../lib/filings/cbso';
import type { FilingItem } from '../../lib/filings/filing';
import { RegistryFileError } from '../../lib/import/sources/files';

const FOLDER = join(__dirname, '..', 'fixtures', 'filings', 'cbso');

async function itemsOf(path: string): Promise<FilingItem[]> {
  const items: FilingItem[] = [];
  for await (const item of cbsoFilings(path)) items.push(item);
  return items;
}

/** The items in the order of their files' names (a ZIP is read in the order of its members). */
const byFile = (items: FilingItem[]) =>
  [...items].sort((a, b) => {
    const file = (i: FilingItem) => (i.kind === 'filing' ? i.filing.source.file : i.source.file);
    return file(a) < file(b) ? -1 : file(a) > file(b) ? 1 : 0;
  });

/** A ZIP of `members` (name in the ZIP, bytes), in that order. */
async function zipOf(
  path: string,
  members: Array<{ name: string; data: Buffer; compress?: boolean }>,
): Promise<string> {
  const zip = new yazl.ZipFile();
  for (const { name, data, compress = true } of members) zip.addBuffer(data, name, { compress });
  zip.end();
  const out = createWriteStream(path);
  zip.outputStream.pipe(out);
  await once(out, 'close');
  return path;
}

let scratch: string;
let fixture: Array<{ name: string; data: Buffer }>;
let fromFolder: FilingItem[];
beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'cbso-zip-test-'));
  const names = (await readdir(FOLDER)).sort();
  fixture = await Promise.all(
    names.map(async (name) => ({ name, data: await readFile(join(FOLDER, name)) })),
  );
  fromFolder = await itemsOf(FOLDER);
});
afterAll(() => rm(scratch, { recursive: true, force: true }));

describe('CBSO filings from a ZIP', () => {
  it('are the folder’s filings, from a ZIP of it', async () => {
    const zip = await zipOf(join(scratch, 'sorted.zip'), fixture);
    const items = await itemsOf(zip);
    expect(fromFolder.filter((i) => i.kind === 'filing').length).toBeGreaterThan(3);
    expect(byFile(items)).toEqual(byFile(fromFolder));
  });

  it('whatever the members’ order and layout: references first, reversed, stored, in a sub-folder', async () => {
    const references = fixture.filter((m) => m.name.endsWith('.reference.json')).reverse();
    const accounting = fixture.filter((m) => m.name.endsWith('.accountingData.json'));
    const zip = await zipOf(join(scratch, 'apart.zip'), [
      ...references.map((m, i) => ({ ...m, name: `2025-01-02/${m.name}`, compress: i % 2 === 0 })),
      ...accounting.map((m, i) => ({ ...m, name: `2025-01-02/${m.name}`, compress: i % 2 === 1 })),
    ]);
    expect(byFile(await itemsOf(zip))).toEqual(byFile(fromFolder));
  });

  it('with a byte-order mark on a member, as on a file', async () => {
    const withBom = fixture.map((m) => ({ ...m, data: Buffer.concat([Buffer.from('\uFEFF'), m.data]) }));
    const zip = await zipOf(join(scratch, 'bom.zip'), withBom);
    expect(byFile(await itemsOf(zip))).toEqual(byFile(fromFolder));
  });

  it('one filing’s reference file in a ZIP’s folder reads that filing only, as in a folder', async () => {
    const one = fromFolder.find((i) => i.kind === 'filing')!;
    const file = one.kind === 'filing' ? one.filing.source.file : '';
    expect(await itemsOf(join(FOLDER, file))).toEqual([one]);
  });

  it('skips a filing whose member is damaged (its CRC-32 fails) and reads the others', async () => {
    const victim = fixture.find((m) => m.name.endsWith('.reference.json'))!;
    const zip = await zipOf(
      join(scratch, 'damaged.zip'),
      fixture.map((m) => ({ ...m, compress: m !== victim })),
    );
    const bytes = await readFile(zip);
    // The stored member's text is in the ZIP as it is: one byte of a field the import does not read
    // changed (still valid JSON, the same filing), only its CRC-32 tells.
    const at = bytes.indexOf(victim.data);
    expect(at).toBeGreaterThan(0);
    bytes[at + victim.data.indexOf('"ModelType": "') + '"ModelType": "'.length] = 'X'.charCodeAt(0);
    await writeFile(zip, bytes);
    const items = await itemsOf(zip);
    const file = victim.name;
    expect(items.find((i) => i.kind !== 'filing' && i.source.file === file)).toEqual({
      kind: 'skipped',
      reason: UNREADABLE,
      source: { file, line: 1 },
    });
    expect(byFile(items.filter((i) => i.kind === 'filing' || i.source.file !== file))).toEqual(
      byFile(fromFolder.filter((i) => i.kind === 'filing' || i.source.file !== file)).filter(
        (i) => i.kind !== 'filing' || i.filing.source.file !== file,
      ),
    );
  });

  it('pairs a filing’s files whatever the case of their suffixes, in a folder and in a ZIP', async () => {
    // Every other reference and accounting file with its suffix spelt otherwise: the same filings.
    const respelt = fixture.map((m, i) => ({
      ...m,
      name: m.name
        .replace(/\.accountingData\.json$/, i % 4 === 0 ? '.ACCOUNTINGDATA.JSON' : '.accountingData.json')
        .replace(/\.reference\.json$/, i % 4 === 1 ? '.Reference.Json' : '.reference.json'),
    }));
    expect(respelt.filter((m, i) => m.name !== fixture[i]!.name).length).toBeGreaterThan(2);
    const folder = join(scratch, 'respelt');
    await mkdir(folder);
    await Promise.all(respelt.map((m) => writeFile(join(folder, m.name), m.data)));
    expect(byFile(await itemsOf(folder))).toEqual(byFile(fromFolder));
    expect(byFile(await itemsOf(await zipOf(join(scratch, 'respelt.zip'), respelt)))).toEqual(
      byFile(fromFolder),
    );
  });

  it('pairs a filing’s files whose names differ in case, and skips a reference file without its pair, in a folder and in a ZIP', async () => {
    // Each reference file's name prefixed `Batch-`, its accounting file's `BATCH-`; one accounting file left out.
    const lonely = fixture
      .find((m) => m.name.endsWith('.reference.json'))!
      .name.replace('.reference.json', '');
    const renamed = fixture
      .filter((m) => m.name !== `${lonely}.accountingData.json`)
      .map((m) => ({
        ...m,
        name: m.name.endsWith('.reference.json') ? `Batch-${m.name}` : `BATCH-${m.name}`,
      }));
    const expected = fromFolder.map((item): FilingItem => {
      const file = `Batch-${item.kind === 'filing' ? item.filing.source.file : item.source.file}`;
      if (file === `Batch-${lonely}.reference.json`)
        return { kind: 'skipped', reason: NO_ACCOUNTING_DATA, source: { file, line: 1 } };
      return item.kind === 'filing'
        ? { ...item, filing: { ...item.filing, source: { ...item.filing.source, file } } }
        : { ...item, source: { ...item.source, file } };
    });
    const folder = join(scratch, 'renamed');
    await mkdir(folder);
    await Promise.all(renamed.map((m) => writeFile(join(folder, m.name), m.data)));
    expect(byFile(await itemsOf(folder))).toEqual(byFile(expected));
    expect(byFile(await itemsOf(await zipOf(join(scratch, 'renamed.zip'), renamed)))).toEqual(
      byFile(expected),
    );
  });

  it('one filing’s accounting file reads that filing only', async () => {
    const one = fromFolder.find((i) => i.kind === 'filing')!;
    const file = one.kind === 'filing' ? one.filing.source.file : '';
    expect(await itemsOf(join(FOLDER, file.replace('.reference.json', '.accountingData.json')))).toEqual([
      one,
    ]);
  });

  it('reads a file larger than one read of a folder’s file, in a folder and in a ZIP', async () => {
    // Each accounting file with 2,000 rubrics of the previous year beside its own: over 64 KB.
    const large = fixture.map((m) => {
      if (!m.name.endsWith('.accountingData.json')) return m;
      const data = JSON.parse(m.data.toString()) as { Rubrics?: unknown[] };
      if (!Array.isArray(data.Rubrics)) return m;
      const previous = Array.from({ length: 2_000 }, (_, i) => ({
        Code: `9${i}`,
        Period: 'NM1',
        Value: 'é1.00',
      }));
      return {
        ...m,
        data: Buffer.from(JSON.stringify({ ...data, Rubrics: [...previous, ...data.Rubrics] })),
      };
    });
    expect(large.some((m) => m.data.length > 1 << 16)).toBe(true);
    const folder = join(scratch, 'large');
    await mkdir(folder);
    await Promise.all(large.map((m) => writeFile(join(folder, m.name), m.data)));
    expect(byFile(await itemsOf(folder))).toEqual(byFile(fromFolder));
    expect(byFile(await itemsOf(await zipOf(join(scratch, 'large.zip'), large)))).toEqual(byFile(fromFolder));
  });

  it('reads every filing of a ZIP read in several batches, the folder’s filings in each of its folders', async () => {
    // 300 copies of the fixture's files, each in a folder of its own: more filings than one batch reads.
    const copies = Array.from({ length: 300 }, (_, i) =>
      fixture.map((m) => ({ ...m, name: `${i}/${m.name}` })),
    );
    const items = await itemsOf(await zipOf(join(scratch, 'batches.zip'), copies.flat()));
    const filings = fromFolder.filter((i) => i.kind === 'filing');
    expect(items.filter((i) => i.kind === 'filing')).toHaveLength(300 * filings.length);
    expect(byFile(items.slice(-fromFolder.length))).toEqual(byFile(fromFolder));
  });

  it('refuses a file that is no ZIP, with its name', async () => {
    const notZip = join(scratch, 'filings.zip');
    await writeFile(notZip, 'these are not filings');
    await expect(itemsOf(notZip)).rejects.toThrow(RegistryFileError);
    await expect(itemsOf(notZip)).rejects.toThrow(`${notZip} is not a readable ZIP`);
  });
});
