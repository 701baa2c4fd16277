/**
 * Where a registry's CSV files come from: a ZIP as published, the folder it unpacks to, or one CSV.
 * Each file is opened as a stream (a ZIP member is inflated as it is read, never whole), and several
 * files of one ZIP may be read at the same time, which the joins over KBO's files need. Names are
 * matched case-insensitively (`contact_insert.Csv` has been seen).
 */
import { createReadStream } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { basename, join } from 'node:path';
import type { Readable } from 'node:stream';
import yauzl from 'yauzl';

import { RegistryFileError } from './registry-error';

export { RegistryFileError };

export interface RegistryFiles {
  /** What the files are (the path given), for messages. */
  readonly origin: string;
  /** The CSV files' names, as in the ZIP or folder. */
  readonly names: readonly string[];
  /** The file of that name (case-insensitive), as it is spelt there; undefined when absent. */
  find(name: string): string | undefined;
  /**
   * The file as a stream of bytes. `chunkBytes`: the size of each read from disk, for a reader that
   * scans bytes and never holds them (a ZIP member comes in the inflater's pieces whatever it is).
   */
  open(name: string, options?: OpenOptions): Promise<Readable>;
  close(): Promise<void>;
}

export interface OpenOptions {
  chunkBytes?: number;
}

/** A file on disk as a stream, read `chunkBytes` at a time (the default 64 KiB otherwise). */
export const streamOf = (path: string, { chunkBytes }: OpenOptions = {}): Promise<Readable> =>
  Promise.resolve(createReadStream(path, chunkBytes ? { highWaterMark: chunkBytes } : {}));

/** A folder, a `.zip` or a single `.csv` (its own name the only one). */
export async function openRegistryFiles(path: string): Promise<RegistryFiles> {
  const info = await stat(path).catch(() => undefined);
  if (!info) throw new RegistryFileError(`${path} does not exist`);
  if (info.isDirectory()) return openFolder(path);
  if (/\.zip$/i.test(path)) return openZip(path);
  return filesOf(
    path,
    [basename(path)],
    (_name, options) => streamOf(path, options),
    async () => {},
  );
}

async function openFolder(path: string): Promise<RegistryFiles> {
  const entries = await readdir(path, { withFileTypes: true });
  const names = entries.filter((entry) => entry.isFile()).map((entry) => entry.name);
  return filesOf(
    path,
    names,
    (name, options) => streamOf(join(path, name), options),
    async () => {},
  );
}

async function openZip(path: string): Promise<RegistryFiles> {
  const zip = await new Promise<yauzl.ZipFile>((resolve, reject) =>
    yauzl.open(path, { lazyEntries: true, autoClose: false }, (error, zipFile) =>
      error
        ? reject(new RegistryFileError(`${path} is not a readable ZIP (${error.message})`))
        : resolve(zipFile),
    ),
  );
  // The central directory lists the members; only their names and offsets are kept.
  const entries = new Map<string, yauzl.Entry>();
  await new Promise<void>((resolve, reject) => {
    zip.on('entry', (entry: yauzl.Entry) => {
      if (!entry.fileName.endsWith('/')) entries.set(basename(entry.fileName), entry);
      zip.readEntry();
    });
    zip.on('end', () => resolve());
    zip.on('error', reject);
    zip.readEntry();
  });
  const open = (name: string) =>
    new Promise<Readable>((resolve, reject) =>
      zip.openReadStream(entries.get(name)!, (error, stream) => (error ? reject(error) : resolve(stream))),
    );
  return filesOf(path, [...entries.keys()], open, async () => zip.close());
}

function filesOf(
  origin: string,
  names: string[],
  open: (name: string, options?: OpenOptions) => Promise<Readable>,
  close: () => Promise<void>,
): RegistryFiles {
  const byLowerCase = new Map(names.map((name) => [name.toLowerCase(), name]));
  const find = (name: string) => byLowerCase.get(name.toLowerCase());
  return {
    origin,
    names,
    find,
    open: (name, options) => {
      const actual = find(name);
      if (!actual) throw new RegistryFileError(`${origin} has no ${name}`);
      return open(actual, options);
    },
    close,
  };
}
