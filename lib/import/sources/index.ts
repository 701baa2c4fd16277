/**
 * The registries' sources the import command knows (contract §11.3): each format's converter, and how
 * a file handed to the JSON Lines import is recognised as one of theirs.
 *
 * A source opens its files (a path, a ZIP or a folder; streamed, nothing loaded whole) and yields its
 * units in the files' order (lib/import/sources/unit.ts), with the date its files are a snapshot of
 * when they say so (KBO's `SnapshotDate`): the import's `--as-of` defaults to it. A converter yields
 * ceased units too: `--active-only` is the import's (it knows which units are stored, §11.5.6).
 * Only this module is loaded up front: each converter comes in when its format is asked for.
 */
import type { RegistryFiles } from './files';
import type { ReadItem, ReadItems, RegistryItem, StoredRegistry } from './unit';

export const REGISTRY_FORMATS = ['kbo', 'sirene'] as const;
export type RegistryFormat = (typeof REGISTRY_FORMATS)[number];

export interface RegistryOpenOptions {
  /** SIRENE: the establishments file (`StockEtablissement`), which gives the head office's address. */
  establishments?: string;
  /**
   * The stage the units go to, for what a later file needs of the earlier ones (§11.5.2): KBO's update
   * applies to the rows kept, a full extract stops what it no longer holds. Without it the files are
   * read alone.
   */
  stored?: StoredRegistry;
}

export interface OpenedRegistry {
  /** The date the files are a snapshot of (`YYYY-MM-DD`), when they say it; null otherwise. */
  snapshotDate: string | null;
  /** Which numbered extract the files are, when the registry numbers them (KBO): they apply in order. */
  extract?: { kind: 'full' | 'update'; number: number };
  items: AsyncIterable<RegistryItem>;
  /**
   * The same items with each unit as its raw text (`RawUnit`), for an import that maps only the units
   * it must (lib/import/registry-digest.ts); absent: the converter maps every unit. Only one of
   * `items` and `unmapped()` is read.
   */
  unmapped?: () => ReadItems;
}

/** One registry's converter: its files in, its units out (the import does the storage). */
export interface RegistrySource {
  open: (paths: string[], options: RegistryOpenOptions) => Promise<OpenedRegistry>;
}

/**
 * The converters by format, each loaded when its format is asked for (a JSON Lines import loads none).
 * A KBO path is a full or an update extract (its ZIP or folder; `meta.csv` required); a SIRENE path is
 * the units file, the establishments file beside it optional. A file that cannot be read as published
 * throws RegistryFileError (the command says why, exit 2).
 */
export const REGISTRY_SOURCES: Partial<Record<RegistryFormat, RegistrySource>> = {
  kbo: {
    open: async ([path], { stored }) => {
      const [{ openRegistryFiles }, { readKboMeta }, { readKboFull }, { isKboUpdate, kboUpdateItems }] =
        await Promise.all([
          import('./files'),
          import('./kbo-tables'),
          import('./kbo'),
          import('./kbo-changes'),
        ]);
      const files = await openRegistryFiles(path!);
      const meta = await readKboMeta(files).catch(closing(files));
      const kind = isKboUpdate(files, meta) ? 'update' : 'full';
      const full =
        kind === 'update'
          ? undefined
          : await readKboFull(files, stored ? { stored } : {}).catch(closing(files));
      return {
        snapshotDate: meta.snapshotDate,
        extract: { kind, number: meta.extractNumber },
        items: closedAfter(full ? full.items : kboUpdateItems(files, meta, stored), [files]),
        ...(full ? { unmapped: () => closedAfter(full.unmapped(), [files]) } : {}),
      };
    },
  },
  sirene: {
    open: async ([path], { establishments }) => {
      const [{ openRegistryFiles }, { sireneItems }] = await Promise.all([
        import('./files'),
        import('./sirene'),
      ]);
      const units = await openRegistryFiles(path!);
      const offices =
        establishments === undefined
          ? undefined
          : await openRegistryFiles(establishments).catch(closing(units));
      const opened = offices ? [units, offices] : [units];
      return {
        snapshotDate: null,
        items: closedAfter(sireneItems(units, offices), opened),
        unmapped: () => closedAfter(sireneItems(units, offices, { unmapped: true }), opened),
      };
    },
  },
};

/** Closes the files (a ZIP's handle) once their items are read, or given up. */
async function* closedAfter<T extends ReadItem | readonly ReadItem[]>(
  items: AsyncIterable<T>,
  files: RegistryFiles[],
): AsyncGenerator<T> {
  try {
    yield* items;
  } finally {
    await Promise.all(files.map((f) => f.close()));
  }
}

/** Closes the files, then passes the error on: for a failure while opening. */
const closing =
  (files: RegistryFiles) =>
  async (error: unknown): Promise<never> => {
    await files.close();
    throw error;
  };

/**
 * The registry whose CSV header `line` is (the first line of a file), or null when it is none: KBO's
 * files name `EnterpriseNumber`, `EntityNumber` or `EstablishmentNumber` among their first columns (or
 * are its `meta.csv` and `code.csv`); SIRENE's stock files start with `siren` or `siret`.
 */
export function registryFormatOfHeader(line: string): RegistryFormat | null {
  const columns = line
    .replace(/^\uFEFF/, '')
    .trim()
    .split(/[,;]/)
    .map((column) =>
      column
        .trim()
        .replace(/^"(.*)"$/, '$1')
        .toLowerCase(),
    );
  if (columns.length < 2) return null;
  const [first, second] = columns as [string, string];
  if (first === 'siren' || first === 'siret') return 'sirene';
  if (KBO_FIRST_COLUMNS.has(first) || columns.includes('enterprisenumber')) return 'kbo';
  if ((first === 'variable' && second === 'value') || (first === 'category' && second === 'code'))
    return 'kbo';
  return null;
}

const KBO_FIRST_COLUMNS = new Set(['enterprisenumber', 'entitynumber', 'establishmentnumber']);
