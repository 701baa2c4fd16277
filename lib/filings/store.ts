/**
 * Which filing brought each period a filing import wrote (lib/filings/apply.ts `FiledPeriods`): one item
 * per company beside its record (lib/storage/keys.ts `filedPeriods`), JSON text. It is written before
 * the company it describes, so a run cut off between the two leaves a record that names a filing whose
 * period was never written: its figures match no stored period, and it names none (apply.ts).
 */
import type { CompanyRef } from '../companies/identifiers';
import { batchGet, batchPut } from '../storage/batch';
import { tableName } from '../storage/client';
import * as keys from '../storage/keys';
import { keyOf } from '../companies/store';
import type { FiledPeriods } from './apply';

/** The filed periods of these companies, keyed by `companyKey`; a company with none is absent. */
export async function getFiledPeriods(refs: CompanyRef[]): Promise<Map<string, FiledPeriods>> {
  const items = await batchGet(tableName(), refs.map(keys.filedPeriods), { consistent: true });
  return new Map(items.map((item) => [keyOf(item), JSON.parse(item['filed'] as string) as FiledPeriods]));
}

export async function putFiledPeriods(
  entries: Array<{ company: CompanyRef; filed: FiledPeriods }>,
): Promise<void> {
  await batchPut(
    tableName(),
    entries.map(({ company, filed }) => ({
      ...keys.filedPeriods(company),
      entity: 'FiledPeriods',
      filed: JSON.stringify(filed),
    })),
  );
}
