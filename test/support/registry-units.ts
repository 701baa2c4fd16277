/**
 * Registry units built by hand as a converter yields them (lib/import/sources/unit.ts), and the imports
 * the registry tests run: KBO enterprises numbered n, read from `enterprise.csv` line n + 1.
 */
import { handler as getUpdates } from '../../functions/get-legal-entity-updates';
import { getRelationships } from '../../lib/companies/holdings-store';
import { belgianCheckDigits, type CompanyRef } from '../../lib/companies/identifiers';
import type { CompanyRecordInput } from '../../lib/companies/record';
import { importCompanies } from '../../lib/import/import';
import { importRegistryItems, type RegistrySummary } from '../../lib/import/registry-import';
import { KBO_OWNS } from '../../lib/import/sources/kbo-unit';
import type { ReadItem, RegistryItem, RegistryUnit } from '../../lib/import/sources/unit';
import { updateRoutes } from '../../lib/updates/routes';
import { call } from './events';

export const beNumber = (n: number) => {
  const firstEight = `08${String(n).padStart(6, '0')}`;
  return firstEight + belgianCheckDigits(firstEight);
};
export const ref = (n: number): CompanyRef => ({ country: 'BE', companyNumber: beNumber(n) });

/** What a KBO unit owns: the converter's own list. */
export { KBO_OWNS };
export const ADDRESS = { street: 'Kerkstraat', number: '12', box: null, postalCode: '9000', place: 'Gent' };

/** Enterprise n as a KBO converter would hand it, from `enterprise.csv` line n + 1. */
export function unit(
  n: number,
  fields: RegistryUnit['fields'] = {},
  extra: Partial<RegistryUnit> = {},
): RegistryItem {
  return {
    kind: 'unit',
    unit: {
      source: { file: 'enterprise.csv', line: n + 1 },
      country: 'BE',
      companyNumber: `${beNumber(n).slice(0, 4)}.${beNumber(n).slice(4, 7)}.${beNumber(n).slice(7)}`,
      owns: KBO_OWNS,
      fields: {
        name: `Registry ${n} NV`,
        place: 'Gent',
        address: ADDRESS,
        legalForm: '014',
        foundedOn: '2001-02-03',
        activities: ['62010'],
        vatNumber: `BE${beNumber(n)}`,
        ...fields,
      },
      dropped: 0,
      registryRows: { denominations: [[n, '001', '2']] },
      ...extra,
    },
  };
}

export async function registry(
  items: ReadItem[],
  asOf = '2026-11-21',
  options: Partial<Parameters<typeof importRegistryItems>[1]> = {},
) {
  async function* all() {
    yield* items;
  }
  const rejected: string[] = [];
  const summary = await importRegistryItems(all(), {
    ...options,
    asOf,
    source: 'kbo',
    onRejected: ({ file, line }, reason) => rejected.push(`${file} line ${line}: ${reason}`),
  });
  return { summary, rejected };
}

export async function jsonLines(records: CompanyRecordInput[], asOf = '2026-11-21') {
  async function* lines() {
    for (const record of records) yield JSON.stringify(record);
  }
  return importCompanies(lines(), { asOf });
}

export const figures = (s: RegistrySummary) => ({
  read: s.read,
  imported: s.imported,
  created: s.created,
  changed: s.changed,
  unchanged: s.unchanged,
  rejected: s.rejected,
});

export const updatesOf = async (n: number, language = 'en') => {
  const legalEntityId = (await getRelationships(ref(n)))!.legalEntityId;
  const response = await call(getUpdates, {
    resource: updateRoutes.getLegalEntityUpdates.path,
    pathParameters: { legalEntityId },
    query: { limit: '20' },
    headers: { 'Accept-Language': language },
  });
  return (response.body as { data: { updates: Array<{ type: string; title: string; time: string }> } }).data
    .updates;
};
