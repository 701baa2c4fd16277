/**
 * The members of a ZIP of filings (lib/filings/cbso-files.ts), read through yauzl's public API over a
 * reader of our own (`fromRandomAccessReader`) that serves yauzl's reads from a few large windows of
 * the file. A filing's files are a few KB, so what a member costs is its handling, not its bytes: the
 * central directory is read in large reads (not one read per entry), and a member is its local header
 * (yauzl's `readLocalFileHeader`, which gives where its data starts) and its data sliced from a window
 * by the central directory's compressed size, inflated by node's `inflateRawSync` in one call, its
 * output one chunk of the size the central directory gives and never more (zlib's native inflate). No
 * search for a member's end, no stream and no read per member.
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
import { crc32, inflateRawSync } from 'node:zlib';
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
    const method = entry.compressionMethod;
    if (method !== STORED && method !== DEFLATED) throw new Error(`${name}: compression method ${method}`);
    const fileDataStart = this.dataStart(entry);
    const packed = this.reader.bytes(fileDataStart, fileDataStart + entry.compressedSize);
    const size = entry.uncompressedSize;
    // Inflated into one chunk of the size declared, never more (more throws; less fails the check below).
    const data =
      method === DEFLATED
        ? inflateRawSync(packed, { chunkSize: Math.max(MIN_CHUNK, size), maxOutputLength: Math.max(1, size) })
        : packed;
    if (data.length !== size) throw new Error(`${name}: ${data.length} bytes where the ZIP says ${size}`);
    if (crc32(data) >>> 0 !== entry.crc32 >>> 0) throw new Error(`${name}: damaged (CRC-32)`);
    return data;
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
