/**
 * The files of a CBSO delivery (contract §11.4, `registries.md` §3.2): a folder, or a ZIP as the
 * web services' daily batch extracts give them, read whole one small file at a time. A filing is two
 * JSON files of a few KB, so what a file costs is its opening, not its parsing: a folder's file is read
 * with one synchronous read (no stream, no promise per file), and a ZIP's member is cut from a window of
 * the ZIP read 1 MB at a time and inflated in one call, so a ZIP laid out in its names' order (as zip
 * tools write a folder) is read front to back once. Memory: the names and offsets are listed whole
 * (about 100 bytes a file), the contents one file at a time.
 *
 * yauzl reads the ZIP's central directory (Zip64, name encodings, the comment); a member's data is the
 * bytes after its local header, whose fixed 30 bytes give the lengths of its name and extra field
 * (APPNOTE 4.3.7), checked against its CRC-32 and size from the central directory.
 */
import { closeSync, fstatSync, openSync, readFileSync, readSync, readdirSync, statSync } from 'node:fs';
import { Readable } from 'node:stream';
import { basename, join } from 'node:path';
import { crc32, inflateRawSync } from 'node:zlib';
import yauzl from 'yauzl';
import { RegistryFileError } from '../import/sources/files';

export interface FilingFiles {
  /** The files' names, as in the folder or ZIP. */
  readonly names: readonly string[];
  /** The file of that name (case-insensitive), as it is spelt there; undefined when absent. */
  find(name: string): string | undefined;
  /** The file's bytes; throws when they cannot be read (a damaged member). */
  read(name: string): Buffer;
  /** Where the file is: a ZIP member's offset (files are read fastest by it), a folder's 0. */
  position(name: string): number;
  close(): void;
}

/** A folder or a `.zip` (a RegistryFileError when it is neither). */
export async function openFilingFiles(path: string): Promise<FilingFiles> {
  const info = statOf(path);
  if (!info) throw new RegistryFileError(`${path} does not exist`);
  if (info.isDirectory()) {
    const names = readdirSync(path, { withFileTypes: true })
      .filter((entry) => entry.isFile())
      .map((entry) => entry.name);
    return filesOf(
      names,
      (name) => readFileSync(join(path, name)),
      () => 0,
      () => {},
    );
  }
  if (!/\.zip$/i.test(path)) throw new RegistryFileError(`${path} is neither a folder nor a ZIP`);
  return openZip(path);
}

const statOf = (path: string) => {
  try {
    return statSync(path);
  } catch {
    return undefined;
  }
};

/** Where a member's data is and how to check it. */
interface Member {
  offset: number;
  compressedSize: number;
  size: number;
  method: number;
  crc: number;
  /** The local header's length if its name and extra field are the central directory's (most often). */
  headerLength: number;
}

const WINDOW = 1 << 20;
const LOCAL_HEADER = 30;
const LOCAL_SIGNATURE = 0x04034b50;

async function openZip(path: string): Promise<FilingFiles> {
  const fd = openSync(path, 'r');
  try {
    const size = fstatSync(fd).size;
    const members = await membersOf(path, new Window(fd, size, 'anywhere'));
    return zipFiles(members, new Window(fd, size, 'forward'), size, () => closeSync(fd));
  } catch (error) {
    closeSync(fd);
    throw error;
  }
}

/**
 * A ZIP's bytes through a window of 1 MB read at once. `anywhere`: a read the window does not hold moves
 * it there (the central directory, read front to back). `forward`: only a read ahead of the window moves
 * it; one behind it is read on its own, so members read in the order of their offsets are read front to
 * back once, and the earlier file of a filing whose two files lie apart costs one read.
 */
class Window {
  private buffer: Buffer = Buffer.alloc(0);
  private start = 0;
  constructor(
    private readonly fd: number,
    readonly size: number,
    private readonly moves: 'anywhere' | 'forward',
  ) {}

  bytes(position: number, length: number): Buffer {
    const offset = position - this.start;
    if (offset >= 0 && offset + length <= this.buffer.length)
      return this.buffer.subarray(offset, offset + length);
    if (offset < 0 && this.moves === 'forward') return this.readAt(position, length);
    this.buffer = this.readAt(position, Math.min(Math.max(WINDOW, length), this.size - position));
    this.start = position;
    return this.buffer.subarray(0, length);
  }

  private readAt(position: number, length: number): Buffer {
    const buffer = Buffer.allocUnsafe(length);
    if (readSync(this.fd, buffer, 0, length, position) < length) throw new Error('the ZIP ends early');
    return buffer;
  }
}

/**
 * The central directory as yauzl reads it, through the window (yauzl's own file reader asks the disk
 * for each entry: two reads a member), by the reader interface it documents for that.
 */
class WindowReader extends yauzl.RandomAccessReader {
  constructor(private readonly window: Window) {
    super();
  }
  override read(
    buffer: Buffer,
    offset: number,
    length: number,
    position: number,
    callback: (error: Error | null, bytesRead?: number) => void,
  ): void {
    try {
      this.window.bytes(position, length).copy(buffer, offset);
      process.nextTick(callback, null, length);
    } catch (error) {
      process.nextTick(callback, error as Error);
    }
  }
  override _readStreamForRange(start: number, end: number): Readable {
    // Not used (members are read through the window), but the interface needs it.
    return Readable.from([Buffer.from(this.window.bytes(start, end - start))]);
  }
}

async function membersOf(path: string, window: Window): Promise<Map<string, Member>> {
  const unreadable = (error: Error) =>
    new RegistryFileError(`${path} is not a readable ZIP (${error.message})`);
  const zip = await new Promise<yauzl.ZipFile>((resolve, reject) =>
    yauzl.fromRandomAccessReader(
      new WindowReader(window),
      window.size,
      { lazyEntries: true },
      (error, zipFile) => (error ? reject(unreadable(error)) : resolve(zipFile)),
    ),
  );
  const members = new Map<string, Member>();
  await new Promise<void>((resolve, reject) => {
    zip.on('entry', (entry: yauzl.Entry) => {
      if (!entry.fileName.endsWith('/') && !entry.isEncrypted())
        members.set(basename(entry.fileName), {
          offset: entry.relativeOffsetOfLocalHeader,
          compressedSize: entry.compressedSize,
          size: entry.uncompressedSize,
          method: entry.compressionMethod,
          crc: entry.crc32,
          headerLength: LOCAL_HEADER + entry.fileNameLength + entry.extraFieldLength,
        });
      zip.readEntry();
    });
    zip.on('end', () => resolve());
    zip.on('error', (error: Error) => reject(unreadable(error)));
    zip.readEntry();
  });
  return members;
}

function zipFiles(
  members: Map<string, Member>,
  window: Window,
  size: number,
  close: () => void,
): FilingFiles {
  const read = (name: string): Buffer => {
    const member = members.get(name)!;
    // The header, its name and extra field (as long as the central directory's, most often) and the data
    // in one read; a longer local extra field takes a second one.
    const guess = member.headerLength + member.compressedSize;
    const header = window.bytes(member.offset, Math.min(guess, size - member.offset));
    if (header.length < LOCAL_HEADER || header.readUInt32LE(0) !== LOCAL_SIGNATURE)
      throw new Error(`${name}: no local header`);
    const skip = LOCAL_HEADER + header.readUInt16LE(26) + header.readUInt16LE(28);
    const raw =
      skip + member.compressedSize <= header.length
        ? header.subarray(skip, skip + member.compressedSize)
        : window.bytes(member.offset + skip, member.compressedSize);
    const data =
      member.method === 0 ? Buffer.from(raw) : member.method === 8 ? inflateRawSync(raw) : undefined;
    if (data === undefined) throw new Error(`${name}: compression method ${member.method}`);
    if (data.length !== member.size || crc32(data) >>> 0 !== member.crc >>> 0)
      throw new Error(`${name}: damaged (size or CRC-32)`);
    return data;
  };
  return filesOf([...members.keys()], read, (name) => members.get(name)?.offset ?? 0, close);
}

function filesOf(
  names: string[],
  read: (name: string) => Buffer,
  position: (name: string) => number,
  close: () => void,
): FilingFiles {
  const exact = new Set(names);
  const byLowerCase = new Map(names.map((name) => [name.toLowerCase(), name]));
  const find = (name: string) => (exact.has(name) ? name : byLowerCase.get(name.toLowerCase()));
  return {
    names,
    find,
    read: (name) => read(find(name) ?? name),
    position,
    close,
  };
}
