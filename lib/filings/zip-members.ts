/**
 * The members of a ZIP of filings (lib/filings/cbso-files.ts), read through yauzl's public API over a
 * reader of our own (`fromRandomAccessReader`) that serves yauzl's reads from a few large windows of
 * the file. A filing's files are a few KB, so what a member costs is its handling, not its bytes: the
 * central directory is read in large reads (not one read per entry), and a member is its local header
 * (yauzl's `readLocalFileHeader`, which gives where its data starts) and its data sliced from a window
 * by the central directory's compressed size, inflated by node's `inflateRawSync` in one call, its
 * output one chunk of the size the central directory gives and never more (zlib's native inflate). No
 * search for a member's end, no stream and no read per member. Many small members are inflated
 * together (`readAll`), in one zlib call and with one zlib handle: a handle's set-up is most of what
 * inflating a few KB costs.
 *
 * Checked as yauzl's own read stream would: the size the central directory gives (a member is never
 * inflated beyond it) and its CRC-32 (which yauzl leaves to the caller). A method other than stored or
 * deflated, or a damaged member, is an error for that member only.
 *
 * The central directory is listed one entry at a time (`entries`), as the members are read, and
 * nothing of it is held here. The windows move forward through the file; a few are kept (the most
 * recently used), so that the central directory's window and the members' stay apart. Memory:
 * `WINDOWS` windows, whatever the ZIP's size.
 */
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { Readable } from 'node:stream';
import { crc32, gunzipSync, inflateRawSync } from 'node:zlib';
import yauzl from 'yauzl';

/** Bytes read at a time from the ZIP (a larger member is read whole, in one read of its own). */
export const WINDOW_BYTES = 1 << 20;
/** Windows kept, the most recently used. */
const WINDOWS = 4;
const STORED = 0;
const DEFLATED = 8;
/** A name that reads the same in CP437 and UTF-8, and that yauzl would not change: printable ASCII, no backslash. */
const PLAIN_NAME = /^[\x20-\x5b\x5d-\x7e]*$/;
/** Info-ZIP's Unicode path extra field: a name of its own, which yauzl prefers. */
const UNICODE_PATH = 0x7075;
/** The smallest output chunk node's zlib takes. */
const MIN_CHUNK = 64;
/** A deflated member inflated with others (`readAll`): its data and its size at most this. */
const TOGETHER_BYTES = 1 << 16;
/** A gzip member's header (RFC 1952): deflate, no flags, no time, unknown system. */
const GZIP_HEADER = Buffer.from([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff]);
/** A gzip member's trailer: its CRC-32 and its size. */
const GZIP_TRAILER = 8;

/** yauzl's reads (the central directory, the local headers) and the members' data, from windows. */
class WindowedReader extends yauzl.RandomAccessReader {
  /** The most recently used first. */
  private windows: Array<{ start: number; bytes: Buffer }> = [];

  constructor(
    private readonly fd: number,
    private readonly size: number,
    private readonly windowBytes: number,
  ) {
    super();
  }

  /**
   * The file's bytes from `start` to `end`: a view of a window, which is never written again (a
   * window read later is a buffer of its own), so a view stays valid while it is held.
   */
  bytes(start: number, end: number): Buffer {
    for (let i = 0; i < this.windows.length; i++) {
      const window = this.windows[i]!;
      if (start < window.start || end > window.start + window.bytes.length) continue;
      if (i > 0) this.windows.unshift(...this.windows.splice(i, 1));
      return window.bytes.subarray(start - window.start, end - window.start);
    }
    if (start < 0 || end > this.size) throw new Error(`bytes ${start}..${end} are beyond the ZIP's end`);
    const length = Math.min(Math.max(end - start, this.windowBytes), this.size - start);
    const bytes = Buffer.allocUnsafe(length);
    const read = readSync(this.fd, bytes, 0, length, start);
    if (read < end - start) throw new Error(`the ZIP ends before byte ${end}`);
    this.windows.unshift({ start, bytes: bytes.subarray(0, read) });
    if (this.windows.length > WINDOWS) this.windows.pop();
    return bytes.subarray(0, end - start);
  }

  /**
   * As `fs.read` (yauzl calls back with the bytes read), from the windows, calling back at once: the
   * bytes are at hand, and a tick per read would be three a member (its central directory entry, its
   * name, its local header). yauzl reads with the callback as its last step, and lists entries one at
   * a time (`lazyEntries`), so a synchronous callback neither re-enters it nor deepens its stack.
   */
  override read(
    buffer: Buffer,
    offset: number,
    length: number,
    position: number,
    callback: (error: Error | null, bytesRead?: number) => void,
  ): void {
    let bytes: Buffer;
    try {
      bytes = this.bytes(position, position + length);
    } catch (error) {
      callback(error as Error, 0);
      return;
    }
    bytes.copy(buffer, offset);
    callback(null, length);
  }

  override _readStreamForRange(start: number, end: number): Readable {
    return Readable.from([this.bytes(start, end)], { objectMode: false });
  }
}

export class ZipMembers {
  private constructor(
    private readonly zip: yauzl.ZipFile,
    private readonly reader: WindowedReader,
    private readonly fd: number,
  ) {}

  /** The ZIP opened (its end of central directory read); throws when the file is no ZIP yauzl can read. */
  static async open(path: string, windowBytes = WINDOW_BYTES): Promise<ZipMembers> {
    const fd = openSync(path, 'r');
    try {
      const size = fstatSync(fd).size;
      const reader = new WindowedReader(fd, size, windowBytes);
      // Names left as bytes: `named` decodes them, a plain ASCII name without yauzl's character loop.
      const zip = await yauzl.fromRandomAccessReaderPromise(reader, size, {
        autoClose: false,
        decodeStrings: false,
      });
      return new ZipMembers(zip, reader, fd);
    } catch (error) {
      closeSync(fd);
      throw error;
    }
  }

  /**
   * The central directory's entries, one at a time, once only: yauzl's own iterator, no layer of ours
   * per entry (a filing is two). Directories and encrypted members are for the caller to leave out
   * (`isFile`).
   */
  entries(): AsyncIterable<yauzl.Entry> {
    return this.zip.eachEntry();
  }

  /**
   * The entry with its name decoded as yauzl would (`getFileNameLowLevel`: UTF-8 when flagged, else
   * CP437; the Info-ZIP Unicode path field first; a backslash read as a slash). A name of printable
   * ASCII only, without that field, reads the same in both encodings, and is decoded in one call.
   * To be called once on each entry of `entries`, before any other use of it.
   */
  named(entry: yauzl.Entry): yauzl.Entry {
    const bytes = entry.fileName as unknown as Buffer;
    const ascii = bytes.toString('latin1');
    entry.fileName =
      PLAIN_NAME.test(ascii) && !entry.extraFields.some((field) => field.id === UNICODE_PATH)
        ? ascii
        : yauzl.getFileNameLowLevel(entry.generalPurposeBitFlag, bytes, entry.extraFields, false);
    return entry;
  }

  /** Whether the entry is a file whose data can be read: not a directory, not encrypted. */
  isFile(entry: yauzl.Entry): boolean {
    return !entry.fileName.endsWith('/') && !entry.isEncrypted();
  }

  /**
   * The member's bytes, checked against the central directory's size and CRC-32; synchronous (no
   * promise a member), since the reader serves yauzl's reads at once.
   */
  read(entry: yauzl.Entry): Buffer {
    const name = entry.fileName;
    const packed = this.packed(entry);
    const size = entry.uncompressedSize;
    // Inflated into one chunk of the size declared, never more (more throws; less fails the check below).
    const data =
      entry.compressionMethod === DEFLATED
        ? inflateRawSync(packed, { chunkSize: Math.max(MIN_CHUNK, size), maxOutputLength: Math.max(1, size) })
        : packed;
    if (data.length !== size) throw new Error(`${name}: ${data.length} bytes where the ZIP says ${size}`);
    if (crc32(data) >>> 0 !== entry.crc32 >>> 0) throw new Error(`${name}: damaged (CRC-32)`);
    return data;
  }

  /**
   * The members' bytes in the order given, each as `read` gives it or the error it throws. The small
   * deflated ones are inflated together, in one call of node's `gunzipSync`: each member's data
   * becomes a gzip member (RFC 1952) whose trailer is the central directory's CRC-32 and size, and
   * node inflates concatenated gzip members one after the other with one zlib handle, checking each
   * trailer, so a member costs no handle of its own. The output is one buffer of the sizes declared
   * and never more; the members' bytes are views of it. When that call fails (a member damaged, or
   * not the size declared), each of them is read alone, so the error is that member's only.
   */
  readAll(entries: readonly yauzl.Entry[]): Array<Buffer | Error> {
    const results: Array<Buffer | Error> = [];
    const together: Array<{ at: number; entry: yauzl.Entry; packed: Buffer }> = [];
    for (const entry of entries) {
      const at = results.push(EMPTY) - 1;
      const small = entry.compressedSize <= TOGETHER_BYTES && entry.uncompressedSize <= TOGETHER_BYTES;
      if (entry.compressionMethod !== DEFLATED || !small) results[at] = this.attempt(entry);
      else
        try {
          together.push({ at, entry, packed: this.packed(entry) });
        } catch (error) {
          results[at] = error as Error;
        }
    }
    const data = together.length > 0 ? inflatedTogether(together) : undefined;
    let start = 0;
    for (const { at, entry } of together) {
      results[at] = data ? data.subarray(start, (start += entry.uncompressedSize)) : this.attempt(entry);
    }
    return results;
  }

  /** The member's bytes, or the error reading it throws. */
  private attempt(entry: yauzl.Entry): Buffer | Error {
    try {
      return this.read(entry);
    } catch (error) {
      return error as Error;
    }
  }

  /** The member's data as the ZIP holds it (a view of a window), its method one this reader inflates. */
  private packed(entry: yauzl.Entry): Buffer {
    const method = entry.compressionMethod;
    if (method !== STORED && method !== DEFLATED)
      throw new Error(`${entry.fileName}: compression method ${method}`);
    const fileDataStart = this.dataStart(entry);
    return this.reader.bytes(fileDataStart, fileDataStart + entry.compressedSize);
  }

  /** Where the member's data starts: after its local header, which yauzl reads (and checks) at once. */
  private dataStart(entry: yauzl.Entry): number {
    let start: number | undefined;
    let failure: Error | null = null;
    this.zip.readLocalFileHeader(entry, { minimal: true }, (error, header) => {
      failure = error;
      start = header?.fileDataStart;
    });
    if (failure) throw failure;
    if (start === undefined) throw new Error(`${entry.fileName}: its local header was not read at once`);
    return start;
  }

  close(): void {
    this.zip.close();
    closeSync(this.fd);
  }
}

const EMPTY = Buffer.alloc(0);

/**
 * Deflated members inflated in one call, as concatenated gzip members whose trailers are the central
 * directory's CRC-32 and size: their bytes one after the other, exactly the sizes declared; undefined
 * when zlib refuses any of them (a damaged member, a CRC-32 or a size that differs).
 */
function inflatedTogether(
  members: ReadonlyArray<{ entry: yauzl.Entry; packed: Buffer }>,
): Buffer | undefined {
  let inputBytes = 0;
  let size = 0;
  for (const { entry, packed } of members) {
    inputBytes += GZIP_HEADER.length + packed.length + GZIP_TRAILER;
    size += entry.uncompressedSize;
  }
  const input = Buffer.allocUnsafe(inputBytes);
  let at = 0;
  for (const { entry, packed } of members) {
    at += GZIP_HEADER.copy(input, at);
    at += packed.copy(input, at);
    at = input.writeUInt32LE(entry.crc32 >>> 0, at);
    at = input.writeUInt32LE(entry.uncompressedSize, at);
  }
  try {
    const data = gunzipSync(input, {
      chunkSize: Math.max(MIN_CHUNK, size),
      maxOutputLength: Math.max(1, size),
    });
    return data.length === size ? data : undefined;
  } catch {
    return undefined;
  }
}
