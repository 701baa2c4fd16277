/**
 * The financials endpoints send stored periods as stored JSON text, cut to the page (lib/companies/
 * financials.ts). Their answers must be byte for byte what the former implementation sent: the stored
 * periods parsed, paginated, and the answer serialised with JSON.stringify. Compared here on the demo
 * data, every company, several pages, and on periods whose strings hold JSON look-alikes.
 */
import { handler as getFinancials } from '../../functions/get-company-financials';
import { handler as getFinancialsBulk } from '../../functions/get-company-financials-bulk';
import { generateDemoData } from '../fixtures/demo-data/companies';
import { toIdentifier } from '../../lib/companies/company';
import { companyKey, type CompanyRef } from '../../lib/companies/identifiers';
import type { CompanyRecordInput } from '../../lib/companies/record';
import { getCompanyRecords, type StoredCompany } from '../../lib/companies/store';
import { paginate, type PageRequest } from '../../lib/http/pagination';
import { call } from '../support/events';
import { importRecords, period } from '../support/records';
import { useFreshTable } from '../support/table';

useFreshTable();

const demo = generateDemoData({ companies: 300 });
/** Strings that look like period boundaries, escapes and non-ASCII, inside a period's strings. */
const TRICKY: CompanyRecordInput = {
  country: 'BE',
  companyNumber: '0403170701',
  name: 'Brouwerij "De Kroon" {NV}',
  place: 'Leuven',
  financials: [2021, 2022, 2023].map((year) => ({
    ...period(year),
    jointCommitteeCodes: ['{"startDate":"2020-01-01"}', '},{"startDate":', '\\"]', 'é\u2028\u0000'],
  })),
};
const records: CompanyRecordInput[] = [...demo, TRICKY];
const refs = records.map(({ country, companyNumber }) => ({ countryCode: country, companyNumber }));
const PAGES: PageRequest[] = [
  { limit: 4, offset: 0 },
  { limit: 1, offset: 0 },
  { limit: 2, offset: 3 },
  { limit: 500, offset: 0 },
  { limit: 3, offset: 9 },
  { limit: 4, offset: 60 },
];

let stored: Map<string, StoredCompany>;

beforeAll(async () => {
  const summary = await importRecords(records);
  expect(summary.imported).toBe(records.length);
  stored = await getCompanyRecords(
    records.map(({ country, companyNumber }) => ({
      country: country as CompanyRef['country'],
      companyNumber,
    })),
  );
}, 120_000);

const keyOf = (ref: { countryCode: string; companyNumber: string }) =>
  companyKey({ country: ref.countryCode as 'BE', companyNumber: ref.companyNumber });

/** Where two answers part, with a little context (null when they are the same bytes). */
function difference(actual: string, expected: string): string | null {
  if (actual === expected) return null;
  let at = 0;
  while (actual[at] === expected[at]) at++;
  return `at ${at}: got …${actual.slice(at - 40, at + 40)}… expected …${expected.slice(at - 40, at + 40)}…`;
}

/** The former answer: the stored periods parsed, paginated, serialised again. */
function formerAnswer(ref: { countryCode: string; companyNumber: string }, page: PageRequest) {
  const { record } = stored.get(keyOf(ref))!;
  return { identifier: toIdentifier(record), ...paginate(record.financials, page) };
}

it('the stored JSON and its tricky strings survive the import', () => {
  expect(stored.size).toBe(records.length);
  expect(stored.get('BE#0403170701')!.record.financials[0]!.jointCommitteeCodes).toEqual(
    TRICKY.financials![0]!.jointCommitteeCodes,
  );
});

describe.each(PAGES)('limit $limit, offset $offset', (page) => {
  it('single GET: the same bytes for every third company and the tricky one', async () => {
    for (const ref of refs.filter((_, i) => i % 3 === 0 || i === refs.length - 1)) {
      const { status, raw } = await call(getFinancials, {
        resource: '/v1/companies/{countryCode}/{companyNumber}/financials',
        pathParameters: ref,
        query: { limit: String(page.limit), offset: String(page.offset) },
      });
      expect(status).toBe(200);
      expect(difference(raw, JSON.stringify(formerAnswer(ref, page)))).toBeNull();
    }
  });

  it('bulk POST: the same bytes, failed items and duplicates included', async () => {
    for (let from = 0; from < refs.length; from += 97) {
      const companies = [
        ...refs.slice(from, from + 97),
        { countryCode: 'BE', companyNumber: '0202239951' },
        { countryCode: 'XX', companyNumber: '1' },
        refs[from]!,
      ];
      const { status, raw } = await call(getFinancialsBulk, {
        method: 'POST',
        resource: '/v1/companies/financials',
        body: { companies, ...page },
      });
      expect(status).toBe(200);
      const former = companies.map((ref) => {
        if (stored.has(keyOf(ref))) return { ...formerAnswer(ref, page), message: null };
        const message = ref.countryCode === 'XX' ? 'Invalid country code' : 'Company not found';
        return {
          identifier: { country: ref.countryCode, companyNumber: ref.companyNumber },
          data: null,
          pagination: null,
          message,
        };
      });
      expect(difference(raw, JSON.stringify(former))).toBeNull();
    }
  });
});
