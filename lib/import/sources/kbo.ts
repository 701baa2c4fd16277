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
 */
import { RegistryFileError, type RegistryFiles } from './files';
import { EntityRows, readKboMeta, type KboMeta } from './kbo-tables';
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
 * establishments' rows (as sorted), both as read from disk. Bump the version whenever `kboUnit` makes
 * something else of the same rows, or the text's shape changes.
 */
export const KBO_MAPPING_VERSION = 'kbo-map-2';

const KBO_MAPPING: RawMapping = {
  version: KBO_MAPPING_VERSION,
  map: (text, source) => {
    const [rows, establishments] = JSON.parse(text) as [KboRows, EstablishmentRows[]];
    return kboUnit(withEstablishments(rows, establishments), { source });
  },
};

/**
 * How `joined` hands on an enterprise, given its rows' JSON text and each of its establishments' (as
 * read from the spool and the sorted runs): mapped, or as its raw text — the texts passed on as read, so
 * a re-import neither parses nor serialises an enterprise whose block is unchanged.
 */
type Emit<T extends ReadItem> = (
  rows: string,
  establishments: string[],
  key: string,
  source: UnitSource,
) => T;

const mapped: Emit<RegistryItem> = (rows, establishments, _key, source) =>
  KBO_MAPPING.map(`[${rows},[${establishments.join(',')}]]`, source);
const raw: Emit<RawUnit> = (rows, establishments, key, source) => ({
  kind: 'raw',
  source,
  company: { country: 'BE', companyNumber: key },
  text: `[${rows},[${establishments.join(',')}]]`,
  mapping: KBO_MAPPING,
});

/** An enterprise's rows with its establishments' rows added. */
function withEstablishments(rows: KboRows, establishments: readonly EstablishmentRows[]): KboRows {
  for (const { establishment, addresses, activities } of establishments) {
    rows.establishments.push(establishment);
    rows.addresses.push(...addresses);
    rows.activities.push(...activities);
  }
  return rows;
}

/** An establishment's rows, as pass 1 hands them to pass 2. */
interface EstablishmentRows {
  establishment: KboRow;
  addresses: KboRow[];
  activities: KboRow[];
}

/** Opens a full extract: `meta.csv` is read (refused without it, or when it is an update). */
export async function readKboFull(files: RegistryFiles, options: KboOptions = {}): Promise<KboExtract> {
  const meta = await readKboMeta(files);
  if (meta.extractType && meta.extractType !== 'full')
    throw new RegistryFileError(`${files.origin} is a KBO ${meta.extractType} extract, not a full one`);
  return {
    meta,
    items: kboItems(files, meta, options, mapped, false) as AsyncGenerator<RegistryItem>,
    unmapped: () => kboItems(files, meta, options, raw, true),
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

/** Every file read, then the join; a file found out of order is sorted on disk and the reading starts again. */
async function* kboItems<T extends ReadItem>(
  files: RegistryFiles,
  meta: KboMeta,
  options: KboOptions,
  emit: Emit<T>,
  batched: boolean,
): AsyncGenerator<T | RegistryItem | Array<T | RegistryItem>> {
  const copies = new Map<string, string>();
  let scratch: string | undefined;
  try {
    for (;;) {
      const read = await readAll(withCopies(files, copies), options).catch((error: unknown) => error);
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
          for await (const batch of joined(read as Read, known ? held : undefined, emit))
            if (batched) yield batch;
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
const spooled = (line: number, key: string, rows: KboRows | null, repeated: string | null = null) =>
  `${JSON.stringify([line, key, repeated])}\t${rows ? JSON.stringify(rows) : ''}`;

/** What the first pass left on disk, for a read given up before the join. */
const discardRead = (read: Read) => Promise.all([read.enterprises.discard(), read.establishments.discard()]);

interface Read {
  file: string;
  /** The enterprises' lines (`spooled`). */
  enterprises: Spool<never>;
  establishments: SortedRuns<EstablishmentRows>;
}

/**
 * The establishments' rows held before a run goes to disk, in characters of JSON (a few thousand
 * establishments): what is held outlives the garbage collector's young generation, and the old one
 * grows to a multiple of what it holds, so a small run keeps the conversion's memory flat.
 */
const ESTABLISHMENT_RUN_CHARS = 2 << 20;

async function readAll(files: RegistryFiles, options: KboOptions): Promise<Read> {
  const enterprises = new Spool<never>(options.runs);
  const establishments = new SortedRuns<EstablishmentRows>({
    runChars: ESTABLISHMENT_RUN_CHARS,
    ...options.runs,
  });
  const walks = [
    await EntityRows.open(files, 'enterprise.csv', 'enterprise'),
    await EntityRows.open(files, 'denomination.csv', 'denomination'),
    await EntityRows.open(files, 'address.csv', 'address'),
    await EntityRows.open(files, 'contact.csv', 'contact'),
    await EntityRows.open(files, 'activity.csv', 'activity'),
    await EntityRows.open(files, 'establishment.csv', 'establishment'),
  ] as const;
  const [enterpriseRows, denominations, addresses, contacts, activities, establishmentRows] = walks;
  try {
    let previous = '';
    for (let next = await enterpriseRows.peek(); next; next = await enterpriseRows.peek()) {
      enterpriseRows.skip();
      if (next.key === previous) {
        await enterprises.addText(spooled(next.line, next.key, null, next.row[0]!.trim()));
        continue;
      }
      previous = next.key;
      // A malformed number (to be rejected) takes no rows: it would pass over other enterprises' rows.
      const take = (walk: EntityRows) => (next.key.length === 10 ? walk.take(next.key) : Promise.resolve([]));
      const rows: KboRows = {
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
      await establishments.add(`${entityKey(next.row[2]!)}:${next.key}`, {
        establishment: next.row,
        addresses: await addresses.take(next.key),
        activities: await activities.take(next.key),
      });
    }
    // The rest of each file (establishments' names and contacts, branches) is read for its order alone.
    for (const walk of [denominations, addresses, contacts, activities]) await walk.checkOrder();
    return { file: enterpriseRows.file, enterprises, establishments };
  } catch (error) {
    await Promise.all([enterprises.discard(), establishments.discard()]);
    throw error;
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
async function* joined<T extends ReadItem>(
  { file, enterprises, establishments }: Read,
  held: Spool<string> | undefined,
  emit: Emit<T>,
): AsyncGenerator<Array<T | RegistryItem>> {
  const sorted = establishments.sortedTexts()[Symbol.asyncIterator]();
  let establishment = await sorted.next();
  let batch: Array<T | RegistryItem> = [];
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
        batch.push(kboUnit(JSON.parse(rows) as KboRows, { source }));
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
      batch.push(emit(rows, own, key, source));
    }
    if (batch.length > 0) yield batch;
  } finally {
    await sorted.return?.(undefined);
    await enterprises.discard();
  }
}
