/**
 * A ZIP's members read by their offsets from a few windows of the file (lib/filings/zip-members.ts):
 * each member as it was zipped, in any order asked and whatever the windows' size, and a damaged
 * member refused alone.
 */
import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import type { Entry } from 'yauzl';
import yauzl from 'yauzl';
import yazl from 'yazl';
import { ZipMembers } from '../../lib/filings/zip-members';

/** Thirty members, deflated and stored in turn, of some 6 KB each: the ZIP is larger than the 64 KB yauzl first reads from its end, so the windows move. */
const MEMBERS = Array.from({ length: 30 }, (_, i) => ({
  fileName: `batch/${String(i).padStart(3, '0')}.json`,
  data: Buffer.from(JSON.stringify({ member: i, text: 'x'.repeat(6000 + i) })),
}));
const DATA = new Map(MEMBERS.map((m) => [m.fileName, m.data]));
const baseName = (fileName: string) => fileName.slice(fileName.lastIndexOf('/') + 1);

let scratch: string;
let zip: string;
beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'zip-members-test-'));
  zip = join(scratch, 'members.zip');
  const file = new yazl.ZipFile();
  MEMBERS.forEach((m, i) => file.addBuffer(m.data, m.fileName, { compress: i % 2 === 0 }));
  file.end();
  const out = createWriteStream(zip);
  file.outputStream.pipe(out);
  await once(out, 'close');
});
afterAll(() => rm(scratch, { recursive: true, force: true }));

/** The ZIP's members by base name, as its central directory lists them. */
async function entriesOf(members: ZipMembers): Promise<Map<string, Entry>> {
  const entries = new Map<string, Entry>();
  for await (const entry of members.entries()) {
    const named = members.named(entry);
    entries.set(baseName(named.fileName), named);
  }
  return entries;
}

/** The members' texts read in `order` (base names) from `path`, through windows of `windowBytes`. */
async function readAll(path: string, order: string[], windowBytes?: number) {
  const members = await ZipMembers.open(path, windowBytes);
  try {
    const entries = await entriesOf(members);
    const read = [];
    for (const name of order) read.push(members.read(entries.get(name)!).toString());
    return read;
  } finally {
    members.close();
  }
}

const names = MEMBERS.map((m) => baseName(m.fileName));
const texts = (order: string[]) => order.map((name) => DATA.get(`batch/${name}`)!.toString());

describe('a ZIP’s members read by their offsets', () => {
  it('are given as zipped, in any order and whatever the windows’ size', async () => {
    expect(await readAll(zip, names)).toEqual(texts(names));
    await fc.assert(
      fc.asyncProperty(
        fc.shuffledSubarray(names, { minLength: 1 }),
        fc.integer({ min: 16, max: 4096 }),
        async (order, windowBytes) => {
          expect(await readAll(zip, order, windowBytes)).toEqual(texts(order));
        },
      ),
      { numRuns: 40 },
    );
  });

  it('refuse a damaged member alone, and a file that is no ZIP', async () => {
    // One byte of the eighth member's data (stored) changed: its CRC-32 fails, the others read.
    const bytes = await readFile(zip);
    const at = bytes.indexOf(Buffer.from('"member":7')) + 3;
    const damaged = join(scratch, 'damaged.zip');
    const copy = Buffer.from(bytes);
    copy[at] = copy[at]! ^ 0x20;
    await writeFile(damaged, copy);
    const members = await ZipMembers.open(damaged);
    try {
      const entries = await entriesOf(members);
      expect([...entries.keys()]).toEqual(names);
      const read = (i: number) => members.read(entries.get(names[i]!)!);
      expect(() => read(7)).toThrow(/007\.json: damaged \(CRC-32\)/);
      expect(read(6).toString()).toBe(texts([names[6]!])[0]);
      expect(read(8).toString()).toBe(texts([names[8]!])[0]);
    } finally {
      members.close();
    }

    const notZip = join(scratch, 'not.zip');
    await writeFile(notZip, 'not a zip at all');
    await expect(ZipMembers.open(notZip)).rejects.toThrow();
  });

  it('are named as yauzl names them: UTF-8, CP437, a backslash', async () => {
    // yazl flags a name UTF-8; `zip` leaves a name CP437: one of each, bytes above ASCII in both.
    const named = join(scratch, 'named.zip');
    const file = new yazl.ZipFile();
    for (const name of ['plain/a.reference.json', 'société/ü.accountingData.json', 'back\\slash.json'])
      file.addBuffer(Buffer.from('{}'), name);
    file.end();
    const out = createWriteStream(named);
    file.outputStream.pipe(out);
    await once(out, 'close');
    const bytes = await readFile(named);
    // Each name's UTF-8 flag cleared in its central directory entry: its bytes read as CP437.
    const unflagged = Buffer.from(bytes);
    for (let at = unflagged.indexOf(Buffer.from('PK\x01\x02', 'latin1')); at >= 0;) {
      unflagged.writeUInt16LE(unflagged.readUInt16LE(at + 8) & ~0x800, at + 8);
      at = unflagged.indexOf(Buffer.from('PK\x01\x02', 'latin1'), at + 4);
    }
    const cp437 = join(scratch, 'cp437.zip');
    await writeFile(cp437, unflagged);
    for (const path of [named, cp437]) {
      const expected: string[] = [];
      const reference = await yauzl.openPromise(path);
      for await (const entry of reference.eachEntry()) expected.push(entry.fileName);
      await reference.close();
      const members = await ZipMembers.open(path);
      const names: string[] = [];
      try {
        for await (const entry of members.entries()) names.push(members.named(entry).fileName);
      } finally {
        members.close();
      }
      expect(names).toEqual(expected);
    }
  });
});
