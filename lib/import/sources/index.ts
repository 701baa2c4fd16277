/**
 * The registries' sources the import command knows (contract §11.3): each format's converter, and how
 * a file handed to the JSON Lines import is recognised as one of theirs.
 *
 * A source opens its files (a path, a ZIP or a folder; streamed, nothing loaded whole) and yields its
 * units in the files' order (lib/import/sources/unit.ts), with the date its files are a snapshot of
 * when they say so (KBO's `SnapshotDate`): the import's `--as-of` defaults to it. A converter yields
 * ceased units too: `--active-only` is the import's (it knows which units are stored, §11.5.6).
 */
import { openRegistryFiles, type RegistryFiles } from './files';
import { readKboFull } from './kbo';
import { sireneItems } from './sirene';
import type { RegistryItem } from './unit';

export const REGISTRY_FORMATS = ['kbo', 'sirene'] as const;
export type RegistryFormat = (typeof REGISTRY_FORMATS)[number];

export interface RegistryOpenOptions {
  /** SIRENE: the establishments file (`StockEtablissement`), which gives the head office's address. */
  establishments?: string;
}

export interface OpenedRegistry {
  /** The date the files are a snapshot of (`YYYY-MM-DD`), when they say it; null otherwise. */
  snapshotDate: string | null;
  items: AsyncIterable<RegistryItem>;
}

/** One registry's converter: its files in, its units out (pure; the import does the storage). */
export interface RegistrySource {
  open: (paths: string[], options: RegistryOpenOptions) => Promise<OpenedRegistry>;
}

/**
 * The converters by format. A KBO path is a full extract (its ZIP or folder; `meta.csv` required); a
 * SIRENE path is the units file, the establishments file beside it optional. A file that cannot be
 * read as published throws RegistryFileError (the command says why, exit 2).
 */
export const REGISTRY_SOURCES: Partial<Record<RegistryFormat, RegistrySource>> = {
  kbo: {
    open: async ([path]) => {
      const files = await openRegistryFiles(path!);
      const { meta, items } = await readKboFull(files).catch(closing(files));
      return { snapshotDate: meta.snapshotDate, items: closedAfter(items, [files]) };
    },
  },
  sirene: {
    open: async ([path], { establishments }) => {
      const units = await openRegistryFiles(path!);
      const offices =
        establishments === undefined
          ? undefined
          : await openRegistryFiles(establishments).catch(closing(units));
      return {
        snapshotDate: null,
        items: closedAfter(sireneItems(units, offices), offices ? [units, offices] : [units]),
      };
    },
  },
};

/** Closes the files (a ZIP's handle) once their items are read, or given up. */
async function* closedAfter(
  items: AsyncIterable<RegistryItem>,
  files: RegistryFiles[],
): AsyncGenerator<RegistryItem> {
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
