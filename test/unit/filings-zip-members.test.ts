/**
 * A ZIP's members read by their offsets from a few windows of the file (lib/filings/zip-members.ts):
 * each member as it was zipped, in any order asked and whatever the windows' size, and a damaged
 * member refused alone; read one at a time or many together (`readAll`, which inflates the small
 * deflated ones in one call).
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

  it('read together are each as read alone: stored, deflated, larger than inflated together or than a window', async () => {
    // Two members over the 64 KB that `readAll` inflates together, one of them larger than the window.
    const large = join(scratch, 'large.zip');
    const file = new yazl.ZipFile();
    const big = (i: number) => Buffer.from(JSON.stringify({ big: i, text: `${i}y`.repeat(50_000) }));
    MEMBERS.forEach((m, i) => file.addBuffer(m.data, m.fileName, { compress: i % 3 !== 0 }));
    file.addBuffer(big(1), 'batch/big-1.json');
    file.addBuffer(big(2), 'batch/big-2.json');
    file.end();
    const out = createWriteStream(large);
    file.outputStream.pipe(out);
    await once(out, 'close');
    const expected = new Map([...DATA].map(([name, data]) => [baseName(name), data.toString()]));
    expected.set('big-1.json', big(1).toString()).set('big-2.json', big(2).toString());
    await fc.assert(
      fc.asyncProperty(
        fc.shuffledSubarray([...expected.keys()], { minLength: 1 }),
        fc.constantFrom(undefined, 4096, 70_000),
        async (order, windowBytes) => {
          const members = await ZipMembers.open(large, windowBytes);
          try {
            const entries = await entriesOf(members);
            const read = members.readAll(order.map((name) => entries.get(name)!));
            expect(read.map((bytes) => bytes.toString())).toEqual(order.map((name) => expected.get(name)));
          } finally {
            members.close();
          }
        },
      ),
      { numRuns: 30 },
    );
  });

  it('read together, a damaged member is an error of its own and the others read', async () => {
    const bytes = await readFile(zip);
    const damaged = join(scratch, 'damaged-together.zip');
    const copy = Buffer.from(bytes);
    // The CRC-32 that the central directory gives the fifth member (deflated) changed, and one byte
    // of the eleventh's deflated data: the call that inflates them together fails, each is read alone.
    const fifth = copy.lastIndexOf(Buffer.from('batch/004.json')) - 46;
    expect(copy.readUInt32LE(fifth)).toBe(0x02014b50);
    copy.writeUInt32LE(copy.readUInt32LE(fifth + 16) ^ 1, fifth + 16);
    const local = copy.indexOf(Buffer.from('batch/010.json')) - 30;
    expect(copy.readUInt32LE(local)).toBe(0x04034b50);
    const eleventh = local + 30 + copy.readUInt16LE(local + 26) + copy.readUInt16LE(local + 28) + 2;
    copy[eleventh] = copy[eleventh]! ^ 0xff;
    await writeFile(damaged, copy);
    const members = await ZipMembers.open(damaged);
    try {
      const entries = await entriesOf(members);
      const read = members.readAll(names.map((name) => entries.get(name)!));
      expect(read[4]).toEqual(new Error('batch/004.json: damaged (CRC-32)'));
      // zlib's own error (its class is of node's realm, not the test's): not the member's bytes.
      expect(Buffer.isBuffer(read[10])).toBe(false);
      expect((read[10] as Error).message).toEqual(expect.any(String));
      const others = names.flatMap((name, i) => (i === 4 || i === 10 ? [] : [name]));
      expect(read.flatMap((bytes, i) => (i === 4 || i === 10 ? [] : [bytes.toString()]))).toEqual(
        texts(others),
      );
    } finally {
      members.close();
    }
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
