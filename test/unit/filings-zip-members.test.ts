/**
 * The one pass over a ZIP's members (lib/filings/zip-members.ts): members given in any order asked,
 * the ones passed held up to a bound and the rest read again by random access, and a file the stream
 * cannot follow read whole by random access.
 */
import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import yazl from 'yazl';
import { StreamedMembers } from '../../lib/filings/zip-members';

/** Thirty members, deflated and stored in turn, of a few hundred bytes each. */
const MEMBERS = Array.from({ length: 30 }, (_, i) => ({
  fileName: `batch/${String(i).padStart(3, '0')}.json`,
  data: Buffer.from(JSON.stringify({ member: i, text: 'x'.repeat(200 + i) })),
}));
const INFO = new Map(MEMBERS.map((m) => [m.fileName, { fileName: m.fileName, crc32: crc32(m.data) }]));
const DATA = new Map(MEMBERS.map((m) => [m.fileName, m.data]));

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

/** The members read in `order` from `path`, and the names read again by random access. */
async function readAll(path: string, order: string[], heldAtMost?: number) {
  const reread: string[] = [];
  const members = new StreamedMembers(
    path,
    INFO,
    async (fileName) => {
      reread.push(fileName);
      return DATA.get(fileName)!;
    },
    heldAtMost,
  );
  try {
    const read = [];
    for (const name of order) read.push((await members.read(name)).toString());
    return { read, reread };
  } finally {
    members.close();
  }
}

const names = MEMBERS.map((m) => m.fileName);
const texts = (order: string[]) => order.map((name) => DATA.get(name)!.toString());

describe('a ZIP’s members in one pass', () => {
  it('gives each member from the stream, in the ZIP’s order and in any other', async () => {
    expect(await readAll(zip, names)).toEqual({ read: texts(names), reread: [] });
    const shuffled = [...names].reverse();
    expect(await readAll(zip, shuffled)).toEqual({ read: texts(shuffled), reread: [] });
  });

  it('holds no more than its bound: what it let go is read again by random access', async () => {
    const last = names[names.length - 1]!;
    const order = [last, ...names.slice(0, -1)];
    // Nothing held: every member passed on the way to the last is read again.
    expect(await readAll(zip, order, 0)).toEqual({ read: texts(order), reread: names.slice(0, -1) });
    // Room for the last ten members: those are held (the last one asked first), the twenty before read again.
    const room = MEMBERS.slice(20).reduce((sum, m) => sum + m.data.length, 0);
    const { read, reread } = await readAll(zip, order, room);
    expect(read).toEqual(texts(order));
    expect(reread).toEqual(names.slice(0, 20));
  });

  it('reads a member whose bytes fail its CRC-32 again, and a file that is no ZIP by random access', async () => {
    const damaged = new Map(INFO);
    damaged.set(names[3]!, { fileName: names[3]!, crc32: (INFO.get(names[3]!)!.crc32 + 1) >>> 0 });
    const reread: string[] = [];
    const members = new StreamedMembers(zip, damaged, async (name) => (reread.push(name), DATA.get(name)!));
    for (const name of names) await members.read(name);
    members.close();
    expect(reread).toEqual([names[3]]);

    const notZip = join(scratch, 'not.zip');
    await writeFile(notZip, 'not a zip at all');
    expect(await readAll(notZip, names.slice(0, 3))).toEqual({
      read: texts(names.slice(0, 3)),
      reread: names.slice(0, 3),
    });
  });
});
