/**
 * The files of a CBSO delivery (contract §11.4, `registries.md` §3.2): a folder, or a ZIP as the
 * web services' daily batch extracts give them, each filing its reference file and its accounting
 * file (`<ref>.reference.json`, `<ref>.accountingData.json`, the suffixes in any case), read whole one
 * small file at a time.
 *
 * Memory stays flat with the delivery's size: neither the folder's names nor the ZIP's central
 * directory is held whole. A folder is listed one entry at a time (`opendir`), and each reference file's
 * accounting file opened by its name; a ZIP's central directory is listed one entry at a time
 * (lib/filings/zip-members.ts), and a file held only until its pair comes (next to it in a ZIP in name
 * order). So filings come in the folder's order of entries (as `ls -U` lists them) or the ZIP's order
 * of members, not sorted by name; the import does not depend on their order (§11.5.9).
 *
 * A filing's files are a few KB, so what a file costs is its opening, not its parsing: a folder's file
 * is read with one synchronous read into a reused buffer (no stream, no promise, no stat per file).
 */
import { closeSync, opendirSync, openSync, readFileSync, readSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import type { Entry } from 'yauzl';
import { RegistryFileError } from '../import/sources/files';
import type { ZipMembers } from './zip-members';

const REFERENCE = '.reference.json';
const ACCOUNTING = '.accountingData.json';
const REFERENCE_LOWER = REFERENCE.toLowerCase();
const ACCOUNTING_LOWER = ACCOUNTING.toLowerCase();

/** A filing's files as the delivery holds them: its texts (undefined: absent or unreadable). */
export interface FilingTexts {
  /** The reference file's name less its suffix. */
  ref: string;
  /** The reference file's name as the delivery spells it. */
  reference: string;
  referenceText: string | undefined;
  accountingText: string | undefined;
}

export interface FilingFiles {
  /**
   * Each filing's files, the reference file's stem `only` when given. A folder's are read at once (a
   * plain iterable: a filing costs no promise), a ZIP's are awaited.
   */
  filings(only?: string): Iterable<FilingTexts> | AsyncIterable<FilingTexts>;
  close(): void;
}

/** A folder or a `.zip` (a RegistryFileError when it is neither). */
export async function openFilingFiles(path: string): Promise<FilingFiles> {
  const info = statOf(path);
  if (!info) throw new RegistryFileError(`${path} does not exist`);
  if (info.isDirectory()) return new FolderFiles(path);
  if (!/\.zip$/i.test(path)) throw new RegistryFileError(`${path} is neither a folder nor a ZIP`);
  return openZip(path);
}

/** The name's stem when it is a reference file's (its suffix in any case), else undefined. */
function referenceStem(name: string): string | undefined {
  return name.endsWith(REFERENCE) || name.toLowerCase().endsWith(REFERENCE_LOWER)
    ? name.slice(0, -REFERENCE.length)
    : undefined;
}

/** The name's stem when it is an accounting file's (its suffix in any case), else undefined. */
function accountingStem(name: string): string | undefined {
  return name.endsWith(ACCOUNTING) || name.toLowerCase().endsWith(ACCOUNTING_LOWER)
    ? name.slice(0, -ACCOUNTING.length)
    : undefined;
}

/** Bytes of a folder's file read in one call; a larger file is read whole by `readFileSync`. */
const READ_BUFFER = 1 << 16;

class FolderFiles implements FilingFiles {
  private readonly buffer = Buffer.allocUnsafe(READ_BUFFER);
  // The folder's path normalised once (`dir/`): a name from its listing is joined by concatenation.
  private readonly prefix: string;
  /** The accounting files by their stem lower-cased: listed only when one is not where its name says. */
  private byLowerCase: Map<string, string> | undefined;

  constructor(private readonly folder: string) {
    this.prefix = join(folder, '/');
  }

  *filings(only?: string): Generator<FilingTexts> {
    const dir = opendirSync(this.folder, { bufferSize: 256 });
    try {
      for (let entry = dir.readSync(); entry !== null; entry = dir.readSync()) {
        if (!entry.isFile()) continue;
        const ref = referenceStem(entry.name);
        if (ref === undefined || (only !== undefined && ref !== only)) continue;
        yield {
          ref,
          reference: entry.name,
          referenceText: this.text(entry.name),
          accountingText: this.accountingText(ref),
        };
      }
    } finally {
      dir.closeSync();
    }
  }

  close(): void {}

  /**
   * The accounting file's text: the one named as the format spells it; failing that, the one of the
   * same stem but the case (listed once, the first time one is needed).
   */
  private accountingText(ref: string): string | undefined {
    const text = this.text(ref + ACCOUNTING, true);
    if (text !== null) return text;
    this.byLowerCase ??= this.accountingByLowerCase();
    const name = this.byLowerCase.get(ref.toLowerCase());
    return name === undefined ? undefined : (this.text(name) ?? undefined);
  }

  /** The folder's accounting files by their stem lower-cased, the same stem's spelt as the format spells it preferred. */
  private accountingByLowerCase(): Map<string, string> {
    const names = new Map<string, string>();
    const dir = opendirSync(this.folder);
    try {
      for (let entry = dir.readSync(); entry !== null; entry = dir.readSync()) {
        const stem = entry.isFile() ? accountingStem(entry.name) : undefined;
        if (stem === undefined) continue;
        const key = stem.toLowerCase();
        if (!names.has(key) || entry.name.endsWith(ACCOUNTING)) names.set(key, entry.name);
      }
    } finally {
      dir.closeSync();
    }
    return names;
  }

  /**
   * The file's text: opened and read into one buffer reused for every file, no stat and no buffer per
   * file (a filing's files are a few KB, so that is most of what reading one costs). A read that fills
   * less than the buffer read the whole file: a regular file's read is short only at its end.
   * Undefined when it cannot be read; null when it does not exist and `absentAsNull`.
   */
  private text(name: string): string | undefined;
  private text(name: string, absentAsNull: true): string | undefined | null;
  private text(name: string, absentAsNull = false): string | undefined | null {
    const path = this.prefix + name;
    let fd: number;
    try {
      fd = openSync(path, 'r');
    } catch (error) {
      return absentAsNull && (error as NodeJS.ErrnoException).code === 'ENOENT' ? null : undefined;
    }
    try {
      const bytes = readSync(fd, this.buffer, 0, READ_BUFFER, 0);
      if (bytes < READ_BUFFER) return this.buffer.toString('utf8', 0, bytes);
    } catch {
      return undefined;
    } finally {
      closeSync(fd);
    }
    try {
      return readFileSync(path, 'utf8');
    } catch {
      return undefined;
    }
  }
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
  const notReadable = (error: Error) =>
    new RegistryFileError(`${path} is not a readable ZIP (${error.message})`, { cause: error });
  const zip = await ZipMembers.open(path).catch((error: Error) => {
    throw notReadable(error);
  });
  return {
    filings: (only) => zipFilings(zip, only, notReadable),
    close: () => zip.close(),
  };
}

/** Filings whose members are read together (`ZipMembers.readAll`): at most this many, */
const BATCH_FILINGS = 128;
/** or files of this many bytes in all (as the central directory gives their sizes). */
const BATCH_BYTES = 1 << 20;

/**
 * A ZIP's filings, their files paired by their base names (a filing's files may be in a folder of the
 * ZIP) as the central directory lists them, the reference file's stem `only` when given: a pair once
 * its second file is listed, a reference file whose accounting file never comes at the end. The pairs
 * are read a batch at a time, their members inflated together (`ZipMembers.readAll`: one zlib call a
 * batch, not one a file). Memory: the files waiting for their pair (in a ZIP in name order, one) and a
 * batch. A central directory found damaged while it is listed is `notReadable`; a member that cannot be
 * read is a file without its text.
 */
async function* zipFilings(
  zip: ZipMembers,
  only: string | undefined,
  notReadable: (error: Error) => Error,
): AsyncGenerator<FilingTexts> {
  const references = new Waiting();
  const accounting = new Waiting();
  // Pairs read a batch at a time, their members inflated together (`readAll`).
  let pairs: Array<[reference: Entry, pair: Entry | undefined]> = [];
  let pending = 0;
  function* read(): Generator<FilingTexts> {
    const data = zip.readAll(pairs.flatMap(([reference, pair]) => (pair ? [reference, pair] : [reference])));
    let at = 0;
    const text = (): string | undefined => {
      const bytes = data[at++];
      return bytes instanceof Buffer ? bytes.toString('utf8') : undefined;
    };
    const batch = pairs;
    pairs = [];
    pending = 0;
    for (const [reference, pair] of batch)
      yield {
        ref: stemOf(reference),
        reference: basename(reference.fileName),
        referenceText: text(),
        accountingText: pair ? text() : undefined,
      };
  }
  const add = (reference: Entry, pair: Entry | undefined) => {
    pairs.push([reference, pair]);
    pending += reference.uncompressedSize + (pair?.uncompressedSize ?? 0);
    return pairs.length >= BATCH_FILINGS || pending >= BATCH_BYTES;
  };
  const entries = zip.entries()[Symbol.asyncIterator]();
  for (;;) {
    let next: IteratorResult<Entry>;
    try {
      next = await entries.next();
    } catch (error) {
      throw notReadable(error as Error);
    }
    if (next.done) break;
    const entry = zip.named(next.value);
    if (!zip.isFile(entry)) continue;
    const name = basename(entry.fileName);
    const ref = referenceStem(name);
    const stem = ref ?? accountingStem(name);
    if (stem === undefined) continue;
    // With `only`, its reference file, and the accounting files that may be its pair.
    if (only !== undefined && (ref === undefined ? stem.toLowerCase() !== only.toLowerCase() : ref !== only))
      continue;
    if (ref === undefined) {
      const reference = references.take(stem);
      if (!reference) accounting.hold(stem, entry);
      else if (add(reference, entry)) yield* read();
    } else {
      const pair = accounting.take(stem);
      if (!pair) references.hold(stem, entry);
      else if (add(entry, pair)) yield* read();
    }
  }
  for (const reference of references.all()) add(reference, undefined);
  yield* read();
}

/** A ZIP's files of one kind waiting for their pair, by stem lower-cased (the same case preferred). */
class Waiting {
  private readonly byStem = new Map<string, Entry[]>();

  hold(stem: string, entry: Entry): void {
    const key = stem.toLowerCase();
    const list = this.byStem.get(key);
    if (list) list.push(entry);
    else this.byStem.set(key, [entry]);
  }

  /** The file waiting with this stem (the same case first, else the first held), no longer waiting. */
  take(stem: string): Entry | undefined {
    const key = stem.toLowerCase();
    const list = this.byStem.get(key);
    if (!list) return undefined;
    const same = list.findIndex((entry) => stemOf(entry) === stem);
    const [entry] = list.splice(same < 0 ? 0 : same, 1);
    if (list.length === 0) this.byStem.delete(key);
    return entry;
  }

  *all(): Generator<Entry> {
    for (const list of this.byStem.values()) yield* list;
  }
}

/** A reference or accounting file's stem (its name less the suffix). */
const stemOf = (entry: Entry) => {
  const name = basename(entry.fileName);
  return referenceStem(name) ?? accountingStem(name)!;
};
