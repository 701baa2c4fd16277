/**
 * The members of a ZIP of filings read front to back in one pass (lib/filings/cbso-files.ts): the
 * ZIP's bytes streamed through fflate's `Unzip` (its public streaming entry point), which finds each
 * member's local header and hands its data over; a deflated member is inflated by node's zlib in one
 * call (fflate's own inflate, in JavaScript, is several times slower), registered as fflate's decoder
 * for method 8. A filing's files are a few KB, so what a member costs is its handling, not its bytes:
 * one pass over the file costs no stream, no read and no inflate stream per member.
 *
 * `read(name)` streams on until that member has been passed; the members passed on the way are held
 * until they are asked for (a filing's two files are near each other in a batch extract), up to
 * `HELD_BYTES`: beyond that the oldest held is let go, and read again by the caller's random-access
 * reader when asked for (`reread`), so memory stays bounded whatever the ZIP's size and order.
 * fflate checks no CRC-32: each member is checked here against the central directory's, and one that
 * fails (or one the stream cannot give, such as a method fflate does not know) is read by `reread`.
 */
import { open, type FileHandle } from 'node:fs/promises';
import { crc32, inflateRawSync } from 'node:zlib';
import { Unzip, UnzipPassThrough, type AsyncFlateStreamHandler, type UnzipFile } from 'fflate';

/** Member data held for later reads, at most (a day's batch ZIP is some 5 MB deflated). */
export const HELD_BYTES = 64 << 20;
/**
 * Bytes of the ZIP read at a time: fflate's `Unzip` calls itself once per member a chunk holds, so a
 * chunk stays small enough for the members of a ZIP of tiny files to fit the call stack.
 */
const CHUNK_BYTES = 32 << 10;

/** What the central directory says of a member the reader may be asked for. */
export interface MemberInfo {
  /** Its full name in the ZIP (as the local header spells it). */
  fileName: string;
  crc32: number;
}

/** fflate's decoder for deflated members through zlib: the member's compressed bytes inflated at once. */
class ZlibInflate {
  static readonly compression = 8;
  ondata: AsyncFlateStreamHandler = () => {};
  private readonly chunks: Uint8Array[] = [];

  push(chunk: Uint8Array, final: boolean): void {
    this.chunks.push(chunk);
    if (!final) return;
    let data: Uint8Array;
    try {
      const deflated = this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks);
      data = inflateRawSync(deflated);
    } catch (error) {
      this.ondata(error as Error & { code: number }, new Uint8Array(0), true);
      return;
    }
    this.ondata(null, data as Uint8Array<ArrayBuffer>, true);
  }
}

export class StreamedMembers {
  /** Members passed and not yet asked for, by full name, oldest first (a Map keeps insertion order). */
  private readonly held = new Map<string, Buffer>();
  private heldBytes = 0;
  private readonly unzip: Unzip;
  private handle: FileHandle | null = null;
  private position = 0;
  /** The stream ended or failed: what it did not give is read by `reread`. */
  private done = false;

  constructor(
    private readonly path: string,
    /** The members worth holding, by full name. */
    private readonly members: ReadonlyMap<string, MemberInfo>,
    /** The member read by random access, when the stream cannot give it. */
    private readonly reread: (fileName: string) => Promise<Buffer>,
    private readonly heldAtMost = HELD_BYTES,
  ) {
    this.unzip = new Unzip((file) => this.member(file));
    this.unzip.register(UnzipPassThrough);
    this.unzip.register(ZlibInflate);
  }

  /** The member's bytes, checked against its CRC-32 (read by random access when the stream fails it). */
  async read(fileName: string): Promise<Buffer> {
    while (!this.held.has(fileName) && !this.done) await this.next();
    const data = this.held.get(fileName);
    if (data === undefined) return this.reread(fileName);
    this.held.delete(fileName);
    this.heldBytes -= data.length;
    return data;
  }

  close(): void {
    this.finish();
    this.held.clear();
  }

  /** One chunk of the ZIP into fflate; at the end, the stream is done. */
  private async next(): Promise<void> {
    try {
      this.handle ??= await open(this.path, 'r');
      // A fresh buffer each time: fflate keeps views of what it is given until a member ends.
      const { bytesRead, buffer } = await this.handle.read(
        Buffer.allocUnsafe(CHUNK_BYTES),
        0,
        CHUNK_BYTES,
        this.position,
      );
      this.position += bytesRead;
      this.unzip.push(buffer.subarray(0, bytesRead), bytesRead === 0);
      if (bytesRead === 0) this.finish();
    } catch {
      // A ZIP the stream cannot follow (its central directory was read): the rest by random access.
      this.finish();
    }
  }

  private finish(): void {
    this.done = true;
    // Best effort: everything read from the file was read; a failed close loses nothing.
    this.handle?.close().catch(() => {});
    this.handle = null;
  }

  private member(file: UnzipFile): void {
    const info = this.members.get(file.name);
    // Started even when not wanted: fflate keeps the data of a member nobody started.
    if (!info) {
      file.ondata = () => {};
      file.start();
      return;
    }
    const chunks: Uint8Array[] = [];
    file.ondata = (error, chunk, final) => {
      if (error) return;
      chunks.push(chunk);
      if (!final) return;
      // A stored member's data is a view of a chunk of the ZIP: copied, so that holding it holds no more.
      const data =
        chunks.length === 1 && file.compression !== 0
          ? Buffer.from(chunks[0]!.buffer, chunks[0]!.byteOffset, chunks[0]!.byteLength)
          : Buffer.concat(chunks);
      // Not held when it fails its CRC-32: `read` rereads it, and that read tells.
      if (crc32(data) >>> 0 === info.crc32 >>> 0) this.hold(info.fileName, data);
    };
    file.start();
  }

  /** Holds the member, letting the oldest held go first while it would not fit (it is always held). */
  private hold(fileName: string, data: Buffer): void {
    for (const [name, oldest] of this.held) {
      if (this.heldBytes + data.length <= this.heldAtMost) break;
      this.held.delete(name);
      this.heldBytes -= oldest.length;
    }
    this.held.set(fileName, data);
    this.heldBytes += data.length;
  }
}
