/**
 * Filings made in a test (a CBSO filing's figures from three rubrics) and the filing import run in this
 * process, with the bare company they are filed for: for the tests of the record of filings and of
 * imports at the same moment.
 */
import type { CompanyRef } from '../../lib/companies/identifiers';
import { getCompanyRecords, type StoredCompany } from '../../lib/companies/store';
import { applyFilings, startAfter } from '../../lib/filings/apply';
import { figuresOf } from '../../lib/filings/figures';
import type { Filing } from '../../lib/filings/filing';
import { healthOfFigures } from '../../lib/filings/health';
import { importFilings } from '../../lib/filings/import';
import { companyRecord } from './records';

/** A CBSO filing of `ref` for the year ending `end`: its total assets and employees, ranked by deposit and reference. */
export function filing(
  ref: CompanyRef,
  end: string,
  deposit: string,
  reference: number,
  assets: number,
): Filing {
  const { figures, dropped } = figuresOf('cbso', {
    get: (code) => ({ '20/58': assets, '10/15': assets / 2, '9087': 10 })[code] ?? null,
  });
  return {
    source: { file: `${ref.companyNumber}-${deposit}.json`, line: 1 },
    format: 'cbso',
    country: 'BE',
    companyNumber: ref.companyNumber,
    endDate: end,
    startDate: startAfter(undefined, end),
    dateReceived: deposit,
    rank: `cbso:${deposit}#2024-${String(reference).padStart(8, '0')}`,
    healthIndicator: healthOfFigures(figures),
    figures,
    dropped,
  };
}

/** The filings through the filing import, the lookalike recompute left out (a test runs `recomputeMarked` when it wants it). */
export async function importOf(filings: Filing[], asOf = '2025-01-01') {
  async function* items() {
    for (const f of filings) yield { kind: 'filing' as const, filing: f };
  }
  return importFilings(items(), { asOf, format: 'cbso', complete: async () => undefined });
}

export const storedOf = async (ref: CompanyRef): Promise<StoredCompany> =>
  (await getCompanyRecords([ref])).get(`${ref.country}#${ref.companyNumber}`)!;

export const bare = (
  ref: CompanyRef,
  name: string,
  financials: ReturnType<typeof applyFilings>['financials'] = [],
) =>
  companyRecord({
    ...ref,
    name,
    activities: ['41201'],
    vatNumber: null,
    website: null,
    financials,
    shareholders: [],
    contacts: [],
  });
