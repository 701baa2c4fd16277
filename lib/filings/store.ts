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
  state.filed === undefined ? undefined : (JSON.parse(state.filed) as FiledPeriods);

/** The record as the company's item holds it. */
export const filedText = (filed: FiledPeriods): string => JSON.stringify(filed);

/**
 * The records of these companies still in their `FILINGS` item, keyed by `companyKey`; a company with
 * none is absent. Eventually consistent: nothing writes these items any more.
 */
export async function getLegacyFiledPeriods(refs: CompanyRef[]): Promise<Map<string, FiledPeriods>> {
  if (refs.length === 0) return new Map();
  const items = await batchGet(tableName(), refs.map(keys.filedPeriods));
  return new Map(items.map((item) => [keyOf(item), JSON.parse(item['filed'] as string) as FiledPeriods]));
}
