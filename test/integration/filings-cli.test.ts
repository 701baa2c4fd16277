/**
 * Financial filings through the command (contract §11.4, §11.5): the sample CBSO filings and French
 * ratios files in test/fixtures/filings imported into DynamoDB Local with `npm run import -- --format
 * cbso|inpi-ratios`, then read back through the financials endpoint's use case; the updates and events
 * a new filing derives (§8.2, §12).
 */
import path from 'node:path';
import type { CompanyRef } from '../../lib/companies/identifiers';
import { getCompanyFinancials } from '../../lib/companies/financials';
import type { FinancialPeriod } from '../../lib/companies/schemas';
import { getEvents } from '../../lib/events/feed';
import { getFeeds } from '../../lib/updates/store';
import { ALICE } from '../support/events';
import { runCli } from '../support/cli';
import { companyRecord, period } from '../support/records';
import { useFreshTable } from '../support/table';
import { watchCompanies } from '../support/watched';

const table = useFreshTable();
jest.setTimeout(300_000);

const FIXTURES = path.join(__dirname, '..', 'fixtures', 'filings');
const CBSO = path.join(FIXTURES, 'cbso');
const CORRECTION = path.join(FIXTURES, 'cbso-correction');
const RATIOS = path.join(FIXTURES, 'inpi-ratios.csv');
const RATIOS_UPDATE = path.join(FIXTURES, 'inpi-ratios-update.csv');

const importCli = (...args: string[]) => runCli('infra/cli/import.ts', args, table.name);

const ACME: CompanyRef = { country: 'BE', companyNumber: '0712345630' };
const BROUWERIJ: CompanyRef = { country: 'BE', companyNumber: '0654321022' };
const MICRO: CompanyRef = { country: 'BE', companyNumber: '0555123476' };
const MIDYEAR: CompanyRef = { country: 'BE', companyNumber: '0999888767' };
const FRENCH: CompanyRef = { country: 'FR', companyNumber: '732829320' };
const FRENCH_SMALL: CompanyRef = { country: 'FR', companyNumber: '401234562' };

const bare = (ref: CompanyRef, name: string, financials: FinancialPeriod[] = []) =>
  companyRecord({
    ...ref,
    name,
    vatNumber: null,
    website: null,
    financials,
    shareholders: [],
    contacts: [],
  });

/** The stored companies the filings are for; one has a period from JSON Lines (2021) already. */
const SEEDED = [
  bare(ACME, 'Acme Bouw NV', [period(2021, { grossMargin: 800_000, healthIndicator: 9 })]),
  bare(BROUWERIJ, 'Brouwerij Peeters BV'),
  bare(MICRO, 'Claes Micro BV'),
  bare(MIDYEAR, 'Dewit Verdeling NV'),
  bare(FRENCH, 'Société Exemple SAS'),
  bare(FRENCH_SMALL, 'Petite Société SARL'),
];

async function periodsOf(ref: CompanyRef): Promise<FinancialPeriod[]> {
  const answer = await getCompanyFinancials(
    { countryCode: ref.country, companyNumber: ref.companyNumber },
    { limit: 50, offset: 0 },
  );
  return (JSON.parse(answer.text) as { data: FinancialPeriod[] }).data;
}
const periodOf = async (ref: CompanyRef, endDate: string) =>
  (await periodsOf(ref)).find((p) => p.endDate === endDate);
const feedOf = async (ref: CompanyRef) =>
  (await getFeeds([ref])).get(`${ref.country}#${ref.companyNumber}`) ?? [];

beforeAll(async () => {
  const seeded = await runCli(
    'infra/cli/import.ts',
    ['-', '--as-of', '2024-01-01'],
    table.name,
    SEEDED.map((r) => JSON.stringify(r)).join('\n'),
  );
  expect(seeded.stdout).toMatch(/^read 6, imported 6 \(new 6,/m);
  await watchCompanies(ALICE, SEEDED);
});

describe('npm run import -- --format cbso', () => {
  it('makes each filing a period of its company, skips unknown companies, rejects invalid numbers', async () => {
    const run = await importCli('--format', 'cbso', CBSO, '--as-of', '2024-10-01');
    // 7 filings: one of an unknown company (skipped, not read), one with an invalid number (rejected).
    expect(run.stderr).toMatch(/^2024-00000998\.reference\.json line 1: EnterpriseNumber 0712345631 is not/m);
    expect(run.stdout).toMatch(/^skipped 1 \(unknown company: 1\)$/m);
    expect(run.stdout).toMatch(/^read 6, imported 5 \(new 5, changed 0, unchanged 0\), rejected 1, /m);
    expect(run.code).toBe(1);

    // The full model: every mapped figure, the JSON Lines period of 2021 kept beside the filings'.
    const acme = await periodsOf(ACME);
    expect(acme.map((p) => p.endDate)).toEqual(['2023-12-31', '2022-12-31', '2021-12-31']);
    expect(acme[0]).toEqual({
      startDate: '2023-01-01',
      endDate: '2023-12-31',
      dateReceived: '2024-07-31',
      healthIndicator: 7,
      jointCommitteeCodes: [],
      profitability: {
        revenue: 2900000,
        grossMargin: 1170000,
        ebitda: 120000,
        ebit: 50000,
        netProfit: -10000,
      },
      liquidity: {
        cash: 80000,
        cashFlow: 60000,
        netWorkingCapital: 220000,
        netWorkingCapitalRequirement: 140000,
        currentRatio: 1.2821,
        quickRatio: 0.9615,
      },
      solvency: {
        totalAssets: 1800000,
        equity: 590000,
        capital: 100000,
        retainedEarnings: 490000,
        debt: 1210000,
        longTermDebt: 400000,
        longTermDebtFinancial: 350000,
        longTermDebtAccountsPayable: 0,
        shortTermDebt: 810000,
        shortTermDebtFinancial: 150000,
        shortTermDebtAccountsPayable: 400000,
      },
      people: { employees: 22, newHires: null, employeeMaleRatio: null, employeeFemaleRatio: null },
    });

    // Abbreviated: a gross margin (9900), no revenue, no capital.
    const abbreviated = (await periodOf(BROUWERIJ, '2023-12-31'))!;
    expect(abbreviated.profitability).toEqual({
      revenue: null,
      grossMargin: 640000,
      ebitda: 95000,
      ebit: 70000,
      netProfit: 48000,
    });
    expect(abbreviated.solvency.capital).toBeNull();
    expect(abbreviated.healthIndicator).toBe(8);

    // Micro: no reserves rubric, so no retained earnings and no health score; no depreciation, no ebitda.
    const micro = (await periodOf(MICRO, '2023-12-31'))!;
    expect(micro.healthIndicator).toBeNull();
    expect(micro.solvency.retainedEarnings).toBeNull();
    expect(micro.profitability.ebitda).toBeNull();
    expect(micro.people.employees).toBeNull();
    expect(micro.solvency).toMatchObject({
      totalAssets: 140000,
      equity: 45000,
      debt: 95000,
      shortTermDebt: 65000,
    });

    // The previous year's figures beside the current ones are not this period's; capitalised dates read.
    const midyear = await periodsOf(MIDYEAR);
    expect(midyear).toHaveLength(1);
    expect(midyear[0]).toMatchObject({
      startDate: '2022-07-01',
      endDate: '2023-06-30',
      dateReceived: '2023-12-20',
    });
    expect(midyear[0]!.profitability.grossMargin).toBe(410000);
    expect(midyear[0]!.solvency.totalAssets).toBe(700000);
  });

  it('derives the updates of §8.2 from new filings, and they reach the events feed', async () => {
    const feed = await feedOf(ACME);
    const fromFilings = feed.filter((u) => u.time === '2024-07-31').map((u) => ({ ...u, id: undefined }));
    // 2023 against 2022: gross margin 920,000 → 1,170,000 (+27 %), health 9 → 7.
    expect(fromFilings).toEqual(
      expect.arrayContaining([
        { id: undefined, time: '2024-07-31', type: 'PUBLISHED_FINANCIALS', year: 2023 },
        { id: undefined, time: '2024-07-31', type: 'GROSS_MARGIN_GROWTH', pct: 27 },
        { id: undefined, time: '2024-07-31', type: 'HEALTHDROP', drop: 2 },
      ]),
    );
    expect(fromFilings).toHaveLength(3);
    // The micro filing's health is null: no HEALTHDROP can come of it, only its publication.
    expect((await feedOf(MICRO)).map((u) => u.type)).toEqual(['PUBLISHED_FINANCIALS']);

    const page = JSON.parse((await getEvents(ALICE, { limit: 100 })).text) as {
      data: Array<{ data: { company: CompanyRef; update: { type: string; title: string } } }>;
    };
    const acmeEvents = page.data.filter((e) => e.data.company.companyNumber === ACME.companyNumber);
    expect(acmeEvents.map((e) => e.data.update.title)).toEqual(
      expect.arrayContaining([
        'Financials were published for 2023',
        'Gross margin grew by 27%',
        'Health dropped by 2',
      ]),
    );
  });

  it('lets a correction replace its period, deriving nothing, and never an older filing', async () => {
    const updatesBefore = (await feedOf(ACME)).length;
    // One filing's file, its pair beside it.
    const corrected = await importCli(
      '--format',
      'cbso',
      path.join(CORRECTION, '2024-00000202.reference.json'),
      '--as-of',
      '2024-10-02',
    );
    expect(corrected.stdout).toMatch(
      /^read 1, imported 1 \(new 0, changed 1, unchanged 0\), rejected 0, updates 0,/m,
    );
    const after = (await periodOf(ACME, '2023-12-31'))!;
    expect(after.dateReceived).toBe('2024-09-15');
    expect(after.profitability.netProfit).toBe(-12000);
    expect(after.solvency).toMatchObject({ equity: 588000, debt: 1212000, retainedEarnings: 488000 });
    expect((await feedOf(ACME)).length).toBe(updatesBefore);

    // The original filing again: older by its deposit date, it changes nothing.
    const again = await importCli('--format', 'cbso', CBSO, '--as-of', '2024-10-03');
    expect(again.stdout).toMatch(/^skipped 2 \(unknown company: 1, superseded: 1\)$/m);
    expect(again.stdout).toMatch(
      /^read 5, imported 4 \(new 0, changed 0, unchanged 4\), rejected 1, updates 0,/m,
    );
    expect((await periodOf(ACME, '2023-12-31'))!.dateReceived).toBe('2024-09-15');
  });
});

describe('npm run import -- --format inpi-ratios', () => {
  it('is named when the ratios file is handed to the JSON Lines import', async () => {
    const run = await importCli(RATIOS);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(
      /is a French ratios CSV file, not JSON Lines: import it with --format inpi-ratios/,
    );
  });

  it('reads the BOM and ;, prefers consolidated to complete to simplified, and works out the dates', async () => {
    const run = await importCli('--format', 'inpi-ratios', RATIOS, '--as-of', '2024-11-04');
    expect(run.stderr).toMatch(
      /^inpi-ratios\.csv line 8: siren 123456789 is not a valid FR company number$/m,
    );
    // 8 rows: C, K, S of one year (K replaces C, S is superseded), one of 2021 (its ebe below its ebit:
    // a field dropped), one of another company, an unknown company, an invalid siren, an unknown type.
    expect(run.stdout).toMatch(
      /^skipped 3 \(unknown type_bilan: 1, superseded: 1, unknown company: 1, fields dropped: 1\)$/m,
    );
    expect(run.stdout).toMatch(/^read 5, imported 4 \(new 3, changed 1, unchanged 0\), rejected 1, /m);

    const french = await periodsOf(FRENCH);
    expect(french.map((p) => [p.endDate, p.startDate, p.dateReceived])).toEqual([
      // The day after the previous end date (2021), however long ago.
      ['2023-12-31', '2022-01-01', '2024-11-04'],
      // No earlier period: a year before its end plus a day.
      ['2021-12-31', '2021-01-01', '2024-11-04'],
    ]);
    expect(french[0]!.profitability).toEqual({
      revenue: 1500000,
      grossMargin: 600000,
      ebitda: 200000,
      ebit: 150000,
      netProfit: 100000,
    });
    expect(french[0]!.healthIndicator).toBe(10);
    expect(french[0]!.liquidity).toEqual({
      cash: null,
      cashFlow: null,
      netWorkingCapital: null,
      netWorkingCapitalRequirement: null,
      currentRatio: null,
      quickRatio: null,
    });
    // ebe below ebit: ebitda left out, so that ebitda ≥ ebit holds among the figures present.
    expect(french[1]!.profitability).toMatchObject({ ebitda: null, ebit: 105000 });
    expect(french[1]!.healthIndicator).toBe(5);
    // An empty ratio the scorecard needs: no health score.
    expect((await periodOf(FRENCH_SMALL, '2023-12-31'))!.healthIndicator).toBeNull();
  });

  it('keeps the preference across imports and works the start dates out from the final periods', async () => {
    const run = await importCli('--format', 'inpi-ratios', RATIOS_UPDATE, '--as-of', '2024-12-01');
    // 2022 complete (new), 2021 complete over simplified (changed), 2023 simplified under consolidated.
    expect(run.stdout).toMatch(/^skipped 1 \(superseded: 1\)$/m);
    expect(run.stdout).toMatch(/^read 2, imported 2 \(new 1, changed 1, unchanged 0\), rejected 0, /m);
    const french = await periodsOf(FRENCH);
    expect(french.map((p) => [p.endDate, p.startDate, p.dateReceived, p.profitability.revenue])).toEqual([
      ['2023-12-31', '2023-01-01', '2024-11-04', 1500000],
      ['2022-12-31', '2022-01-01', '2024-12-01', 1000000],
      ['2021-12-31', '2021-01-01', '2024-12-01', 920000],
    ]);

    // The same files again change nothing.
    const again = await importCli('--format', 'inpi-ratios', RATIOS_UPDATE, '--as-of', '2024-12-02');
    expect(again.stdout).toMatch(
      /^read 2, imported 2 \(new 0, changed 0, unchanged 2\), rejected 0, updates 0,/m,
    );
    const first = await importCli('--format', 'inpi-ratios', RATIOS, '--as-of', '2024-12-03');
    expect(first.stdout).toMatch(/\(new 0, changed 0, unchanged \d+\), rejected 1, updates 0,/m);
    expect(await periodsOf(FRENCH)).toEqual(french);
  });
});
