/**
 * The lines of an import file (contract §11.2), whether it is gzip-compressed or not: recognised by
 * gzip's magic bytes, whatever the file is called. Used by the import command and by the import
 * engine's workers on AWS.
 */
import { createInterface } from 'node:readline';
import { Transform, type Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';

export interface FileLines {
  lines: AsyncIterable<string>;
  /** Whether the file is gzip-compressed. */
  compressed: boolean;
}

/** The file's lines; `onBytes` counts the bytes read as stored (for a progress report). */
export async function fileLines(raw: Readable, onBytes?: (bytes: number) => void): Promise<FileLines> {
  const head = await new Promise<Buffer | null>((resolve, reject) => {
    raw.once('readable', () => resolve(raw.read() as Buffer | null));
    raw.once('end', () => resolve(null));
    raw.once('error', reject);
  });
  // A counting transform, not a 'data' listener: a listener would start the flow before readline listens.
  const counted = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      onBytes?.(chunk.length);
      done(null, chunk);
    },
  });
  raw.on('error', (error) => counted.destroy(error));
  if (head) counted.write(head);
  raw.pipe(counted);
  const compressed = head !== null && head.length >= 2 && head[0] === 0x1f && head[1] === 0x8b;
  const text = compressed ? counted.pipe(createGunzip()) : counted;
  return { lines: createInterface({ input: text, crlfDelay: Infinity }), compressed };
}
