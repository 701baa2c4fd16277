/**
 * A KBO full extract (contract §11.3; `registries.md` §1) → one item per enterprise of `enterprise.csv`,
 * in that file's order. Every file is read once, none held:
 *
 * 1. The enterprises: `enterprise.csv` joined with the enterprises' rows of `denomination.csv`,
 *    `address.csv`, `contact.csv` and `activity.csv` (all in enterprise order), each enterprise's rows
 *    spooled to local disk in that order.
 * 2. The establishments, which those files hold after the enterprises: `establishment.csv` joined with
 *    the establishments' rows of `address.csv` and `activity.csv` (in establishment order), each
 *    establishment's rows re-ordered by its enterprise in sorted runs on disk (§11.5.10).
 * 3. The spool and the sorted establishments merged by enterprise, each enterprise mapped (or, for a
 *    re-import, handed on as the texts the spool and the runs hold, `unmapped`).
 * 4. Given the stage (`KboOptions.stored`), the enterprises it holds from KBO that `enterprise.csv` does
 *    not list are stopped on the extract's `SnapshotDate` (`kbo-stops.ts`; contract §11.5.2): the
 *    stage's are read before the first enterprise is handed on, the stops made after the last.
 *
 * Each join is a merge of streams grouped by entity number, their order checked as they go
 * (`kbo-tables.ts`); every file is read to its end before anything is handed on, so a file found out of
 * order is copied in order through sorted runs on disk and the reading starts again.
 *
 * A re-import's files are read as raw records (`unmapped`): each row is spooled, sorted and handed on as
 * the text the file holds, and parsed only when its enterprise is mapped, so an enterprise whose block
 * is unchanged is never parsed into values (contract §11.3: a file imported again goes as fast as its
 * rows are read). That holds where the files' quoting is plain; when one is found not to be, the
 * reading starts again with every file parsed, as for a file out of order.
 */
import { RegistryFileError, type RegistryFiles } from './files';
import {
  EntityRows,
  formatsHash,
  readKboMeta,
  type KboMeta,
  type KboReading,
  type KboRecordReader,
  type KeptRow,
} from './kbo-tables';
import { entityKey, kboUnit, type KboRow, type KboRows } from './kbo-unit';
import { SortedRuns, Spool, type SortedRunsOptions } from './sorted-runs';
import { OutOfOrderError, sortedCopy, withCopies } from './sorted-copy';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type {
  RawMapping,
  RawUnit,
  ReadItem,
  ReadItems,
  RegistryItem,
  StoredRegistry,
  UnitSource,
} from './unit';
import { storedEnterprises, stoppedEnterprises } from './kbo-stops';

export interface KboOptions {
  /** Where the spool, the sorted runs and any sorted copy go (default: the system's temporary folder), and the runs' size. */
  runs?: SortedRunsOptions;
  /** The stage: the enterprises it holds from KBO that the extract no longer holds are stopped after the others. */
  stored?: StoredRegistry;
}

/** What a full extract gives: its meta and its items, mapped or (`unmapped`) as raw text. */
export interface KboExtract {
  meta: KboMeta;
  items: AsyncGenerator<RegistryItem>;
  /**
   * The same items, each enterprise handed on as its rows' raw text (`RawUnit`), mapped by whoever needs
   * it, the enterprises in arrays of `BATCH_UNITS` (one await an array, not a unit).
   */
  unmapped: () => ReadItems;
}

/**
 * What the raw text of an enterprise is mapped with: the JSON array of its own rows (as spooled) and its
 * establishments' rows (as sorted), both as read from disk, each row its values (`KboRow`) or, read as
 * raw records, its record's text. Bump the version whenever `kboUnit` makes something else of the same
 * rows, or the text's shape changes.
 */
export const KBO_MAPPING_VERSION = 'kbo-map-2';

/** An enterprise's rows as the join keeps them (`KboRows` but for `ceasedOn`), each row as its walk keeps it. */
interface Kept<T> {
  enterprise: T;
  establishments: T[];
  denominations: T[];
  addresses: T[];
  contacts: T[];
  activities: T[];
}

/** An establishment's rows, as pass 1 hands them to pass 2. */
interface EstablishmentRows<T = KboRow> {
  establishment: T;
  addresses: T[];
  activities: T[];
}

/** The mapping of an enterprise's text whose rows are values. */
const PARSED_MAPPING: RawMapping = {
  version: KBO_MAPPING_VERSION,
  map: (text, source) => {
    const [rows, establishments] = JSON.parse(text) as [KboRows, EstablishmentRows[]];
    return kboUnit(withEstablishments(rows, establishments), { source });
  },
};

/**
 * The mapping of an enterprise's text whose rows are raw records, each table's read back as values by
 * its reader at once (the enterprise's own rows, then each establishment's, as `withEstablishments`
 * orders them). Its version names the tables' headers and line endings, which say what a record's
 * fields are.
 */
function recordsMapping(readers: Record<keyof Kept<unknown>, KboRecordReader>): RawMapping {
  return {
    version: `${KBO_MAPPING_VERSION}+records:${formatsHash(Object.values(readers))}`,
    map: (text, source) => {
      const [own, establishments] = JSON.parse(text) as [Kept<string>, EstablishmentRows<string>[]];
      const kept = withEstablishments(own, establishments);
      const rows: KboRows = {
        enterprise: readers.enterprise.rows([kept.enterprise])[0]!,
        establishments: readers.establishments.rows(kept.establishments),
        denominations: readers.denominations.rows(kept.denominations),
        addresses: readers.addresses.rows(kept.addresses),
        contacts: readers.contacts.rows(kept.contacts),
        activities: readers.activities.rows(kept.activities),
      };
      return kboUnit(rows, { source });
    },
  };
}

/** An enterprise's rows with its establishments' rows added (values or records alike). */
function withEstablishments<T, R extends Kept<T>>(
  rows: R,
  establishments: readonly EstablishmentRows<T>[],
): R {
  for (const { establishment, addresses, activities } of establishments) {
    rows.establishments.push(establishment);
    rows.addresses.push(...addresses);
    rows.activities.push(...activities);
  }
  return rows;
}

/**
 * How `joined` hands on an enterprise, given its rows' JSON text and each of its establishments' (as
 * read from the spool and the sorted runs): mapped, or as its raw text — the texts passed on as read, so
 * a re-import neither parses nor serialises an enterprise whose block is unchanged.
 */
type Emit = (text: string, mapping: RawMapping, key: string, source: UnitSource) => ReadItem;

const mapped: Emit = (text, mapping, _key, source) => mapping.map(text, source);
const raw: Emit = (text, mapping, key, source): RawUnit => ({
  kind: 'raw',
  source,
  company: { country: 'BE', companyNumber: key },
  text,
  mapping,
});

/** Opens a full extract: `meta.csv` is read (refused without it, or when it is an update). */
export async function readKboFull(files: RegistryFiles, options: KboOptions = {}): Promise<KboExtract> {
  const meta = await readKboMeta(files);
  if (meta.extractType && meta.extractType !== 'full')
    throw new RegistryFileError(`${files.origin} is a KBO ${meta.extractType} extract, not a full one`);
  return {
    meta,
    items: kboItems(files, meta, options, false) as AsyncGenerator<RegistryItem>,
    unmapped: () => kboItems(files, meta, options, true),
  };
}

/** The key column each file is sorted by when it comes out of order. */
const KEY_COLUMNS: Record<string, string> = {
  'enterprise.csv': 'EnterpriseNumber',
  'establishment.csv': 'EstablishmentNumber',
  'denomination.csv': 'EntityNumber',
  'address.csv': 'EntityNumber',
  'contact.csv': 'EntityNumber',
  'activity.csv': 'EntityNumber',
};

/** Thrown by a reading of raw records that found a file's quoting not plain: the files are read again, parsed. */
class NotPlainError extends Error {}

/**
 * Every file read, then the join; a file found out of order is sorted on disk and the reading starts
 * again, and so it does, parsed, when a file read as raw records (`unmapped`) is not plain.
 */
async function* kboItems(
  files: RegistryFiles,
  meta: KboMeta,
  options: KboOptions,
  unmapped: boolean,
): AsyncGenerator<ReadItem | ReadItem[]> {
  const copies = new Map<string, string>();
  let scratch: string | undefined;
  let reading: KboReading = unmapped ? 'records' : 'parsed';
  try {
    for (;;) {
      const read = await readAll(withCopies(files, copies), options, reading).catch(
        (error: unknown) => error,
      );
      if (read instanceof NotPlainError) {
        reading = 'parsed';
        continue;
      }
      if (!(read instanceof OutOfOrderError)) {
        if (read instanceof Error) throw read;
        // The stage's enterprises, read before the first unit is handed on (kbo-stops.ts).
        const known =
          options.stored &&
          (await storedEnterprises(options.stored, options.runs).catch(async (error: unknown) => {
            await discardRead(read as Read);
            throw error;
          }));
        const held = new Spool<string>(options.runs);
        try {
          for await (const batch of joined(read as Read, known ? held : undefined, unmapped ? raw : mapped))
            if (unmapped) yield batch;
            else for (const item of batch) yield item;
          if (known) yield* stoppedEnterprises(held, known, meta, (read as Read).file);
        } finally {
          await Promise.all([held.discard(), known?.discard()]);
        }
        return;
      }
      const key = KEY_COLUMNS[read.file.toLowerCase()];
      if (!key || copies.has(read.file)) throw read;
      scratch ??= await mkdtemp(join(options.runs?.dir ?? tmpdir(), 'kbo-sorted-'));
      copies.set(read.file, await sortedCopy(files, read.file, key, entityKey, scratch, options.runs));
    }
  } finally {
    if (scratch) await rm(scratch, { recursive: true, force: true });
  }
}

/**
 * One enterprise as spooled, a line of text: `[line, key, repeated]` as JSON (its line in
 * `enterprise.csv`, its number, and the number as written when it is a repeat, else null), a tab, then
 * its rows (no establishments yet) as JSON, which `joined` hands on as text. JSON escapes tabs: the
 * first tab is the separator.
 */
const spooled = (line: number, key: string, rows: Kept<unknown> | null, repeated: string | null = null) =>
  `${JSON.stringify([line, key, repeated])}\t${rows ? JSON.stringify(rows) : ''}`;

/** What the first pass left on disk, for a read given up before the join. */
const discardRead = (read: Read) => Promise.all([read.enterprises.discard(), read.establishments.discard()]);

interface Read {
  file: string;
  /** The enterprises' lines (`spooled`). */
  enterprises: Spool<never>;
  establishments: SortedRuns<EstablishmentRows<unknown>>;
  /** What an enterprise's text (its rows as kept) is mapped with. */
  mapping: RawMapping;
}

/**
 * The establishments' rows held before a run goes to disk, in characters of JSON (a few thousand
 * establishments): what is held outlives the garbage collector's young generation, and the old one
 * grows to a multiple of what it holds, so a small run keeps the conversion's memory flat.
 */
const ESTABLISHMENT_RUN_CHARS = 2 << 20;

async function readAll<W extends KboReading>(
  files: RegistryFiles,
  options: KboOptions,
  reading: W,
): Promise<Read> {
  const enterprises = new Spool<never>(options.runs);
  const establishments = new SortedRuns<EstablishmentRows<KeptRow<W>>>({
    runChars: ESTABLISHMENT_RUN_CHARS,
    ...options.runs,
  });
  const walks = [
    await EntityRows.open(files, 'enterprise.csv', 'enterprise', reading),
    await EntityRows.open(files, 'denomination.csv', 'denomination', reading),
    await EntityRows.open(files, 'address.csv', 'address', reading),
    await EntityRows.open(files, 'contact.csv', 'contact', reading),
    await EntityRows.open(files, 'activity.csv', 'activity', reading),
    await EntityRows.open(files, 'establishment.csv', 'establishment', reading),
  ] as const;
  const [enterpriseRows, denominations, addresses, contacts, activities, establishmentRows] = walks;
  const plain = () => walks.every((walk) => walk.plain);
  try {
    let previous = '';
    for (let next = await enterpriseRows.peek(); next; next = await enterpriseRows.peek()) {
      enterpriseRows.skip();
      if (next.key === previous) {
        const repeated = enterpriseRows.valueIn(next.row, 0).trim();
        await enterprises.addText(spooled(next.line, next.key, null, repeated));
        continue;
      }
      previous = next.key;
      // A malformed number (to be rejected) takes no rows: it would pass over other enterprises' rows.
      const take = (walk: EntityRows<W>) =>
        next.key.length === 10 ? walk.take(next.key) : Promise.resolve([]);
      const rows: Kept<KeptRow<W>> = {
        enterprise: next.row,
        establishments: [],
        denominations: await take(denominations),
        addresses: await take(addresses),
        contacts: await take(contacts),
        activities: await take(activities),
      };
      await enterprises.addText(spooled(next.line, next.key, rows));
    }
    previous = '';
    for (let next = await establishmentRows.peek(); next; next = await establishmentRows.peek()) {
      establishmentRows.skip();
      if (next.key === previous) continue; // listed twice: its rows went with the first
      previous = next.key;
      await establishments.add(`${entityKey(establishmentRows.valueIn(next.row, 2))}:${next.key}`, {
        establishment: next.row,
        addresses: await addresses.take(next.key),
        activities: await activities.take(next.key),
      });
    }
    // The rest of each file (establishments' names and contacts, branches) is read for its order alone.
    for (const walk of [denominations, addresses, contacts, activities]) await walk.checkOrder();
    if (!plain()) throw new NotPlainError();
    const mapping =
      reading === 'records'
        ? recordsMapping({
            enterprise: enterpriseRows.reader(),
            establishments: establishmentRows.reader(),
            denominations: denominations.reader(),
            addresses: addresses.reader(),
            contacts: contacts.reader(),
            activities: activities.reader(),
          })
        : PARSED_MAPPING;
    return { file: enterpriseRows.file, enterprises, establishments, mapping };
  } catch (error) {
    await Promise.all([enterprises.discard(), establishments.discard()]);
    // Raw records of a file not plain are not its rows: what went wrong with them says nothing.
    throw plain() ? error : new NotPlainError();
  } finally {
    await Promise.all(walks.map((walk) => walk.close()));
  }
}

/** Enterprises handed on together by `joined`. */
const BATCH_UNITS = 64;

/**
 * The enterprises joined with their establishments, `BATCH_UNITS` at a time; each well-formed number
 * also goes to `held`, in order.
 */
async function* joined(
  { file, enterprises, establishments, mapping }: Read,
  held: Spool<string> | undefined,
  emit: Emit,
): AsyncGenerator<ReadItem[]> {
  const sorted = establishments.sortedTexts()[Symbol.asyncIterator]();
  let establishment = await sorted.next();
  let batch: ReadItem[] = [];
  try {
    for await (const text of enterprises.texts()) {
      if (batch.length >= BATCH_UNITS) {
        yield batch;
        batch = [];
      }
      const tab = text.indexOf('\t');
      const [line, key, repeated] = JSON.parse(text.slice(0, tab)) as [number, string, string | null];
      const source = { file, line };
      if (repeated !== null) {
        batch.push({
          kind: 'rejected',
          source,
          reason: `enterprise ${repeated} appears twice (the first one wins)`,
        });
        continue;
      }
      const rows = text.slice(tab + 1);
      if (key.length !== 10) {
        batch.push(mapping.map(`[${rows},[]]`, source));
        continue;
      }
      const spooling = held?.addText(key);
      if (spooling) await spooling;
      // The runs' keys are `enterprise:establishment`: those of enterprises not in the file are passed over.
      while (!establishment.done && establishment.value[0] < `${key}:`) establishment = await sorted.next();
      const own: string[] = [];
      while (!establishment.done && establishment.value[0].startsWith(`${key}:`)) {
        own.push(establishment.value[1]);
        establishment = await sorted.next();
      }
      batch.push(emit(`[${rows},[${own.join(',')}]]`, mapping, key, source));
    }
    if (batch.length > 0) yield batch;
  } finally {
    await sorted.return?.(undefined);
    await enterprises.discard();
  }
}
