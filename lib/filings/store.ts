/**
 * Which filing brought each period a filing import wrote (lib/filings/apply.ts `FiledPeriods`): JSON
 * text on the company's own item (lib/companies/store.ts `CompanyState.filed`), read with the company
 * and written with it in the same put, so a filing changes one item and the record never names a period
 * that was not written.
 *
 * A stage whose filing imports ran before the record moved onto the company item keeps it in a
 * `FILINGS` item beside the company (lib/storage/keys.ts `filedPeriods`), no longer written: it is read
 * only for a company with periods whose item holds no record yet, and the company's next write by the
 * filing import carries the record onto its item (docs/data-model.md).
 */
import type { CompanyRef } from '../companies/identifiers';
import { keyOf, type CompanyState } from '../companies/store';
import { batchGet } from '../storage/batch';
import { tableName } from '../storage/client';
import * as keys from '../storage/keys';
import type { FiledPeriods } from './apply';

/** The record of filings on the company's item, or undefined when it holds none. */
export const filedOf = (state: CompanyState): FiledPeriods | undefined =>
  state.filed === undefined ? undefined : parseFiled(state.filed);

/**
 * The record as the company's item holds it, in its shortest form: per `endDate` (in order), each filing
 * as one text, its rank, a space, the hash of its figures (`"cbso:2024-06-30#2024-00012345 ChDl…"`), in
 * order. The company item is written whole with every filing, so the record's names are not repeated
 * in it for every entry; the same record always gives the same text.
 */
export const filedText = (filed: FiledPeriods): string =>
  JSON.stringify(
    Object.fromEntries(
      Object.keys(filed)
        .sort()
        .map((end) => [end, filed[end]!.map((e) => `${e.rank} ${e.figures}`).sort()]),
    ),
  );

type StoredEntry = string | { rank: string; figures: string };

/**
 * A record as stored: the short form `filedText` writes, or the form of entries as objects that a
 * `FILINGS` item, or a company item written before, holds. A hash has no space; a rank may.
 */
export function parseFiled(text: string): FiledPeriods {
  const stored = JSON.parse(text) as Record<string, StoredEntry[]>;
  const filed: FiledPeriods = {};
  for (const [end, entries] of Object.entries(stored))
    filed[end] = entries.map((entry) => {
      if (typeof entry !== 'string') return entry;
      const space = entry.lastIndexOf(' ');
      return { rank: entry.slice(0, space), figures: entry.slice(space + 1) };
    });
  return filed;
}

/**
 * The records of these companies still in their `FILINGS` item, keyed by `companyKey`; a company with
 * none is absent. Eventually consistent: nothing writes these items any more.
 */
export async function getLegacyFiledPeriods(refs: CompanyRef[]): Promise<Map<string, FiledPeriods>> {
  if (refs.length === 0) return new Map();
  const items = await batchGet(tableName(), refs.map(keys.filedPeriods));
  return new Map(items.map((item) => [keyOf(item), parseFiled(item['filed'] as string)]));
}
