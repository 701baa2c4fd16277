import * as v from 'valibot';
import type { CompanyRecord } from '../../lib/companies/company';
import { parseCompanyNumber } from '../../lib/companies/identifiers';
import { COUNTRIES } from '../../lib/schemas/common';
import { financialPeriodSchema, type FinancialPeriod } from '../../lib/schemas/financials';
import { DEFAULT_DEMO_COMPANIES, generateDemoData, pickExamples } from '../../infra/local/demo-data';

// One default data set shared by the read-only checks (generation is deterministic). Per-period checks
// collect the offenders and expect none: one readable failure instead of thousands of expect calls.
const records: CompanyRecord[] = generateDemoData();
const periods: FinancialPeriod[] = records.flatMap((r) => r.periods);

const LEGAL_FORMS = {
  BE: ['NV', 'BV', 'SRL', 'SA', 'CommV'],
  NL: ['B.V.', 'N.V.', 'V.O.F.'],
  FR: ['SAS', 'SARL', 'SA', 'SASU', 'EURL'],
} as const;

const cents = (x: number | null): number => Math.round(x! * 100);
const hasAtMostDecimals = (x: number, decimals: number): boolean =>
  new RegExp(`^-?\\d+(\\.\\d{1,${decimals}})?$`).test(String(x));
const near = (a: number | null, b: number): boolean => a !== null && Math.abs(a - b) < 0.0001;

/** Oldest first (records list them in any order). */
const chronological = (r: CompanyRecord): FinancialPeriod[] =>
  [...r.periods].sort((a, b) => a.endDate.localeCompare(b.endDate));

/** Pairs of consecutive periods, oldest first, for every company. */
const consecutive: { company: CompanyRecord; before: FinancialPeriod; after: FinancialPeriod }[] =
  records.flatMap((company) => {
    const ps = chronological(company);
    return ps.slice(1).map((after, i) => ({ company, before: ps[i]!, after }));
  });

const utc = (iso: string): Date => new Date(`${iso}T00:00:00Z`);
const addDaysIso = (iso: string, days: number): string =>
  new Date(utc(iso).getTime() + days * 86_400_000).toISOString().slice(0, 10);

describe('demo data generation', () => {
  test('same seed gives the same companies', () => {
    expect(generateDemoData({ seed: 7, companies: 300 })).toEqual(
      generateDemoData({ seed: 7, companies: 300 }),
    );
    // The full default set compared as JSON: as strict (key order included) and much faster than toEqual.
    expect(JSON.stringify(generateDemoData())).toBe(JSON.stringify(records));
  });

  test('a different seed gives different companies', () => {
    const a = generateDemoData({ seed: 1, companies: 30 });
    const b = generateDemoData({ seed: 2, companies: 30 });
    expect(a).not.toEqual(b);
    expect(a.filter((r, i) => r.company.name === b[i]!.company.name).length).toBeLessThan(5);
  });

  test('a smaller count gives a prefix of the larger data set', () => {
    expect(generateDemoData({ companies: 50 })).toEqual(records.slice(0, 50));
  });

  test('a count that is not a non-negative integer is rejected', () => {
    expect(() => generateDemoData({ companies: -1 })).toThrow(RangeError);
    expect(() => generateDemoData({ companies: 1.5 })).toThrow(RangeError);
    expect(generateDemoData({ companies: 0 })).toEqual([]);
  });
});

describe('demo companies', () => {
  test('the default count is 3000, spread evenly over BE, NL and FR', () => {
    expect(DEFAULT_DEMO_COMPANIES).toBe(3000);
    expect(records).toHaveLength(3000);
    for (const country of COUNTRIES) {
      expect(records.filter((r) => r.company.country === country)).toHaveLength(1000);
    }
  });

  test('every company number is canonical, valid for its country and unique', () => {
    const invalid = records
      .map((r) => r.company)
      .filter((c) => parseCompanyNumber(c.country, c.companyNumber) !== c.companyNumber);
    expect(invalid).toEqual([]);
    const keys = records.map((r) => `${r.company.country}#${r.company.companyNumber}`);
    expect(new Set(keys).size).toBe(keys.length);
  });

  test('VAT numbers follow the country format and match the company number', () => {
    const wrong = records
      .map((r) => r.company)
      .filter(({ country, companyNumber, vatNumber }) => {
        switch (country) {
          case 'BE':
            return vatNumber !== `BE${companyNumber}`;
          case 'NL':
            return !/^NL\d{9}B01$/.test(vatNumber ?? '');
          case 'FR':
            // The key must check out: parseCompanyNumber verifies numeric FR keys.
            return (
              !/^FR\d{11}$/.test(vatNumber ?? '') || parseCompanyNumber('FR', vatNumber) !== companyNumber
            );
        }
      });
    expect(wrong).toEqual([]);
  });

  test('names end in a legal form typical of the country and are mostly unique', () => {
    const wrong = records
      .map((r) => r.company)
      .filter((c) => {
        const forms: readonly string[] = LEGAL_FORMS[c.country];
        const form = forms.find((f) => c.name.endsWith(` ${f}`));
        return form === undefined || c.name.length < form.length + 5;
      });
    expect(wrong).toEqual([]);
    expect(new Set(records.map((r) => r.company.name)).size).toBeGreaterThan(records.length * 0.95);
    for (const country of COUNTRIES) {
      const used = new Set(
        records.filter((r) => r.company.country === country).map((r) => r.company.name.split(' ').at(-1)),
      );
      expect(used.size).toBeGreaterThanOrEqual(3);
    }
  });

  test('every company has a place, from at least 15 towns per country', () => {
    for (const country of COUNTRIES) {
      const places = records.filter((r) => r.company.country === country).map((r) => r.company.place);
      expect(places.filter((p) => typeof p !== 'string' || p.trim() === '')).toEqual([]);
      expect(new Set(places).size).toBeGreaterThanOrEqual(15);
    }
  });

  test('websites are lowercase https URLs on the country domain, missing for about 10%', () => {
    const withoutSite = records.filter((r) => r.company.website === null).length;
    expect(withoutSite).toBeGreaterThan(records.length * 0.05);
    expect(withoutSite).toBeLessThan(records.length * 0.15);
    const wrong = records
      .map((r) => r.company)
      .filter((c) => c.website !== null)
      .filter(
        (c) =>
          !new RegExp(`^https://www\\.[a-z0-9]+(-[a-z0-9]+)*\\.${c.country.toLowerCase()}$`).test(c.website!),
      );
    expect(wrong).toEqual([]);
  });

  test('pickExamples returns the first company with at least 5 periods for each country', () => {
    const examples = pickExamples(records);
    expect(examples.map((r) => r.company.country)).toEqual(['BE', 'NL', 'FR']);
    for (const example of examples) {
      const first = records.find(
        (r) => r.company.country === example.company.country && r.periods.length >= 5,
      );
      expect(example).toBe(first);
    }
  });
});

describe('demo financial periods', () => {
  test('every company has 1 to 10 periods and every period matches the schema', () => {
    expect(records.filter((r) => r.periods.length < 1 || r.periods.length > 10)).toEqual([]);
    expect(periods.filter((p) => !v.safeParse(financialPeriodSchema, p).success)).toEqual([]);
  });

  test('period keys come in the schema order, nested objects too', () => {
    const entries = financialPeriodSchema.entries;
    const order = (p: FinancialPeriod): string[][] => [
      Object.keys(p),
      Object.keys(p.profitability),
      Object.keys(p.liquidity),
      Object.keys(p.solvency),
      Object.keys(p.people),
    ];
    const expected = [
      Object.keys(entries),
      Object.keys(entries.profitability.entries),
      Object.keys(entries.liquidity.entries),
      Object.keys(entries.solvency.entries),
      Object.keys(entries.people.entries),
    ];
    expect(order(periods[0]!)).toEqual(expected);
    const expectedJson = JSON.stringify(expected);
    expect(periods.filter((p) => JSON.stringify(order(p)) !== expectedJson)).toEqual([]);
  });

  test('periods are whole calendar or July–June years, the newest ending by 2025-12-31', () => {
    const wrong = periods.filter((p) => {
      const year = Number(p.endDate.slice(0, 4));
      const calendar = p.startDate === `${year}-01-01` && p.endDate === `${year}-12-31`;
      const midYear = p.startDate === `${year - 1}-07-01` && p.endDate === `${year}-06-30`;
      return !(calendar || midYear) || p.endDate > '2025-12-31';
    });
    expect(wrong).toEqual([]);
    // About 15% of companies use a July–June fiscal year.
    const midYear = records.filter((r) => r.periods[0]!.endDate.endsWith('-06-30')).length;
    expect(midYear).toBeGreaterThan(records.length * 0.1);
    expect(midYear).toBeLessThan(records.length * 0.2);
  });

  test('periods of a company are consecutive and do not overlap', () => {
    const gaps = consecutive.filter(({ before, after }) => after.startDate !== addDaysIso(before.endDate, 1));
    expect(gaps).toEqual([]);
  });

  test('accounts are received 3 to 7 months after the period ends, never after 2026-11-20', () => {
    const wrong = periods.filter((p) => {
      const end = utc(p.endDate);
      const earliest = new Date(Date.UTC(end.getUTCFullYear(), end.getUTCMonth() + 3, end.getUTCDate()));
      // The last day of the 7th month after the end month.
      const latest = new Date(Date.UTC(end.getUTCFullYear(), end.getUTCMonth() + 8, 0));
      const received = utc(p.dateReceived!);
      return received < earliest || received > latest || p.dateReceived! > '2026-11-20';
    });
    expect(wrong).toEqual([]);
  });

  test('amounts have at most 2 decimals and ratios at most 4', () => {
    const wrong = periods.filter((p) => {
      const { profitability: pr, liquidity: l, solvency: s, people } = p;
      const amounts = [...Object.values(pr), l.currentAssets, l.inventory, l.cash, l.currentLiabilities];
      amounts.push(...Object.values(s), people.personnelCosts);
      const ratios = [l.currentRatio, l.quickRatio, people.employeeCostRatio, people.employeeGrowthRatio];
      return (
        amounts.some((x) => x !== null && !hasAtMostDecimals(x, 2)) ||
        ratios.some((x) => x !== null && !hasAtMostDecimals(x, 4))
      );
    });
    expect(wrong).toEqual([]);
  });

  test('only revenue may be missing, only for small Belgian companies (abbreviated accounts)', () => {
    const wrong = records.filter((r) =>
      r.periods.some((p) => {
        const { revenue, ...rest } = p.profitability;
        const values: unknown[] = [...Object.values(rest), ...Object.values(p.liquidity)];
        values.push(...Object.values(p.solvency), ...Object.values(p.people).slice(0, 2));
        values.push(p.dateReceived, p.healthIndicator);
        if (values.includes(null)) return true;
        return revenue === null && (r.company.country !== 'BE' || p.people.employees! > 50);
      }),
    );
    expect(wrong).toEqual([]);
    const abbreviated = records.filter((r) => r.periods.every((p) => p.profitability.revenue === null));
    expect(abbreviated.length).toBeGreaterThan(50);
  });

  test('equity plus debt equals total assets to the cent', () => {
    const { solvency } = periods[0]!;
    expect(cents(solvency.equity) + cents(solvency.debt)).toBe(cents(solvency.totalAssets));
    const wrong = periods.filter(
      ({ solvency: s }) => cents(s.equity) + cents(s.debt) !== cents(s.totalAssets),
    );
    expect(wrong).toEqual([]);
  });

  test('gross margin, personnel costs, depreciation and operating profit hang together', () => {
    const wrong = periods.filter(({ profitability: pr, people }) => {
      const depreciation = cents(pr.ebitda) - cents(pr.operatingProfit);
      return (
        (pr.revenue !== null && pr.grossMargin! >= pr.revenue) ||
        depreciation < 0 ||
        cents(pr.grossMargin) - cents(people.personnelCosts) - depreciation !== cents(pr.operatingProfit)
      );
    });
    expect(wrong).toEqual([]);
  });

  test('liquidity ratios are computed from the amounts shown', () => {
    const wrong = periods.filter(({ liquidity: l }) => {
      const cl = l.currentLiabilities!;
      return (
        !(cl > 0) ||
        !near(l.currentRatio, l.currentAssets! / cl) ||
        !near(l.quickRatio, (l.currentAssets! - l.inventory!) / cl) ||
        l.inventory! + l.cash! > l.currentAssets!
      );
    });
    expect(wrong).toEqual([]);
  });

  test('employee cost ratio is personnel costs over gross margin', () => {
    const wrong = periods.filter(({ profitability: pr, people }) =>
      pr.grossMargin! > 0
        ? !near(people.employeeCostRatio, people.personnelCosts! / pr.grossMargin!)
        : people.employeeCostRatio !== null,
    );
    expect(wrong).toEqual([]);
  });

  test('employee growth compares with the previous period and is null for the first', () => {
    expect(records.filter((r) => chronological(r)[0]!.people.employeeGrowthRatio !== null)).toEqual([]);
    const wrong = consecutive.filter(({ before, after }) => {
      const previous = before.people.employees!;
      const growth = after.people.employeeGrowthRatio;
      return previous === 0 ? growth !== null : !near(growth, after.people.employees! / previous - 1);
    });
    expect(wrong).toEqual([]);
  });

  test('employees are whole FTEs and personnel costs fit them', () => {
    const wrong = periods.filter(({ people }) => {
      const employees = people.employees!;
      if (!Number.isInteger(employees) || employees < 0) return true;
      if (employees === 0) return people.personnelCosts !== 0;
      const perFte = people.personnelCosts! / employees;
      return perFte < 35_000 || perFte > 85_000;
    });
    expect(wrong).toEqual([]);
  });

  test('companies range from micro to large, and some make losses', () => {
    const latestEmployees = records.map((r) => chronological(r).at(-1)!.people.employees!);
    expect(latestEmployees.filter((e) => e < 10).length).toBeGreaterThan(500);
    expect(latestEmployees.filter((e) => e >= 250).length).toBeGreaterThan(100);
    const lossShare = periods.filter((p) => p.profitability.netProfit! < 0).length / periods.length;
    expect(lossShare).toBeGreaterThan(0.1);
    expect(lossShare).toBeLessThan(0.4);
  });

  test('equity carries over: last year plus part of a profit, or minus the whole loss', () => {
    const wrong = consecutive.filter(({ before, after }) => {
      const change = cents(after.solvency.equity) - cents(before.solvency.equity);
      const profit = cents(after.profitability.netProfit);
      return profit >= 0 ? change < 0 || change > profit + 1 : Math.abs(change - profit) > 1;
    });
    expect(wrong).toEqual([]);
  });

  test('health indicators cover the scale, and better figures score higher', () => {
    const distinct = new Set(periods.map((p) => p.healthIndicator));
    expect(distinct.size).toBeGreaterThanOrEqual(8);
    const average = (ps: FinancialPeriod[]): number =>
      ps.reduce((sum, p) => sum + p.healthIndicator!, 0) / ps.length;
    const equityRatio = (p: FinancialPeriod): number => p.solvency.equity! / p.solvency.totalAssets!;
    const strong = periods.filter(
      (p) => equityRatio(p) >= 0.4 && p.liquidity.currentRatio! >= 1.5 && p.profitability.netProfit! > 0,
    );
    const weak = periods.filter((p) => equityRatio(p) < 0 && p.profitability.netProfit! < 0);
    expect(strong.length).toBeGreaterThan(100);
    expect(weak.length).toBeGreaterThan(100);
    expect(average(strong)).toBeGreaterThan(average(weak) + 4);
  });

  test('joint committee codes: 1–2 Belgian codes, one 4-digit French IDCC, none for the Netherlands', () => {
    const wrong = records.filter((r) =>
      r.periods.some(({ jointCommitteeCodes: codes }) => {
        switch (r.company.country) {
          case 'BE':
            return codes.length < 1 || codes.length > 2 || codes.some((c) => !/^\d{3}(\.\d{2})?$/.test(c));
          case 'FR':
            return codes.length !== 1 || !/^\d{4}$/.test(codes[0]!);
          case 'NL':
            return codes.length !== 0;
        }
      }),
    );
    expect(wrong).toEqual([]);
  });
});
