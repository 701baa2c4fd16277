/**
 * The files of a CBSO delivery (contract §11.4, `registries.md` §3.2): a folder, or a ZIP as the
 * web services' daily batch extracts give them, read whole one small file at a time. A filing is two
 * JSON files of a few KB, so what a file costs is its opening, not its parsing: a folder's file is read
 * with one synchronous read into a reused buffer (no stream, no promise, no stat per file). A ZIP's
 * central directory is listed once by yauzl (names, offsets, sizes, CRC-32s), and its members read by
 * their offsets in large reads (lib/filings/zip-members.ts). Memory: the names and entries are listed
 * whole (about 100 bytes a file), the contents one file at a time.
 */
import { closeSync, openSync, readFileSync, readSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { RegistryFileError } from '../import/sources/files';

export interface FilingFiles {
  /** The files' names, as in the folder or ZIP. */
  readonly names: readonly string[];
  /** The file's text, as UTF-8 (a ZIP member's once it is read), by its name as `names` spells it; throws when it cannot be read. */
  read(name: string): string | Promise<string>;
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
    return { names, read: folderReader(path), position: () => 0, close: () => {} };
  }
  if (!/\.zip$/i.test(path)) throw new RegistryFileError(`${path} is neither a folder nor a ZIP`);
  return openZip(path);
}

/** Bytes of a folder's file read in one call; a larger file is read whole by `readFileSync`. */
const READ_BUFFER = 1 << 16;

/**
 * A folder's file as text: opened and read into one buffer the reader reuses, no stat and no buffer
 * per file (a filing's files are a few KB, so that is most of what reading one costs). A read that
 * fills less than the buffer read the whole file: a regular file's read is short only at its end.
 */
function folderReader(folder: string): (name: string) => string {
  const buffer = Buffer.allocUnsafe(READ_BUFFER);
  // The folder's path normalised once (`dir/`): a name from its listing is joined by concatenation.
  const prefix = join(folder, '/');
  return (name) => {
    const path = prefix + name;
    const fd = openSync(path, 'r');
    try {
      const bytes = readSync(fd, buffer, 0, READ_BUFFER, 0);
      if (bytes < READ_BUFFER) return buffer.toString('utf8', 0, bytes);
    } finally {
      closeSync(fd);
    }
    return readFileSync(path, 'utf8');
  };
}

const statOf = (path: string) => {
  try {
    return statSync(path);
  } catch {
    return undefined;
  }
};

async function openZip(path: string): Promise<FilingFiles> {
  // Loaded for a ZIP only: a folder's conversion does not pay for the ZIP library.
  const { ZipMembers } = await import('./zip-members');
  const zip = await ZipMembers.open(path).catch((error: Error) => {
    throw new RegistryFileError(`${path} is not a readable ZIP (${error.message})`);
  });
  return {
    names: [...zip.entries.keys()],
    read: async (name) => (await zip.read(name)).toString('utf8'),
    position: (name) => zip.entries.get(name)?.relativeOffsetOfLocalHeader ?? 0,
    close: () => zip.close(),
  };
}
