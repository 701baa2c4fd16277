import { COUNTRIES, frenchVatKey, parseCompanyNumber } from '../../lib/companies/identifiers';
import { parseCompanyRecord } from '../../lib/companies/record';
import type { FinancialPeriod } from '../../lib/companies/schemas';
import { healthOfFigures } from '../../lib/filings/health';
import { deriveUpdates } from '../../lib/updates/derive';
import {
  DEFAULT_DEMO_COMPANIES,
  demoRecords,
  generateDemoData,
  pickExamples,
} from '../fixtures/demo-data/companies';
import type { DemoRecord, DemoShareholder } from '../fixtures/demo-data/records';
import { DEMO_SNAPSHOT_DATE, olderSnapshotOf } from '../fixtures/demo-data/snapshots';
import { PERIOD_KEYS, RECORD_KEYS } from '../support/contract';

// One default data set shared by the read-only checks (generation is deterministic). Checks over many
// records collect the offenders and expect none: one readable failure instead of thousands of expects.
const records: DemoRecord[] = generateDemoData();
const periods: FinancialPeriod[] = records.flatMap((r) => r.financials);
const indexByKey = new Map(records.map((r, i) => [`${r.country}#${r.companyNumber}`, i]));

const LEGAL_FORMS = {
  BE: ['NV', 'BV', 'SRL', 'SA', 'CommV'],
  NL: ['B.V.', 'N.V.', 'V.O.F.'],
  FR: ['SAS', 'SARL', 'SA', 'SASU', 'EURL'],
} as const;

/** NACE-BEL 2008 subclasses the demo may use, checked by hand against the nomenclature. */
const NACE_CODES = new Set(
  `10130 10510 10712 10720 10821 10850 10890 11050 16230 25110 25620 25730 28990 33120 41101 41201 41202
   43211 43221 43222 43320 43390 43910 43999 46190 46310 46380 46390 46410 46420 46510 46520 46690 46730
   46740 46900 47220 47241 47250 47290 47410 47520 47710 49320 49390 49410 52100 52290 53200 55100 56101
   56102 56210 56290 56301 58290 62010 62020 62030 62090 63110 64200 68100 68201 68203 68311 68321 70100
   70210 70220 73110 74100 78100 81100 81210 81220 81300`.split(/\s+/),
);

const cents = (x: number | null): number => Math.round(x! * 100);
const hasAtMostDecimals = (x: number, decimals: number): boolean =>
  new RegExp(`^-?\\d+(\\.\\d{1,${decimals}})?$`).test(String(x));
const sum = (xs: number[]): number => xs.reduce((total, x) => total + x, 0);

/** Oldest first (records may list them in any order). */
const chronological = (r: DemoRecord): FinancialPeriod[] =>
  [...r.financials].sort((a, b) => a.endDate.localeCompare(b.endDate));

/** Pairs of consecutive periods, oldest first, for every company. */
const consecutive: { company: DemoRecord; before: FinancialPeriod; after: FinancialPeriod }[] =
  records.flatMap((company) => {
    const ps = chronological(company);
    return ps.slice(1).map((after, i) => ({ company, before: ps[i]!, after }));
  });

const utc = (iso: string): Date => new Date(`${iso}T00:00:00Z`);
const addDaysIso = (iso: string, days: number): string =>
  new Date(utc(iso).getTime() + days * 86_400_000).toISOString().slice(0, 10);

const isPerson = (s: DemoShareholder): boolean => s.country === undefined && s.companyNumber === undefined;
const isOurs = (s: DemoShareholder): boolean =>
  s.country === 'BE' || s.country === 'NL' || s.country === 'FR';
const shareholdings = records.flatMap((company, index) =>
  company.shareholders.map((holder) => ({ company, index, holder })),
);
const registered = shareholdings.filter(({ holder }) => isOurs(holder));
const isHolding = (r: DemoRecord): boolean => r.activities[0] === '70100';

describe('demo data generation', () => {
  test('the same seed and count give byte-identical JSON', () => {
    expect(JSON.stringify(generateDemoData({ seed: 7, companies: 300 }))).toBe(
      JSON.stringify(generateDemoData({ seed: 7, companies: 300 })),
    );
    expect(JSON.stringify(generateDemoData())).toBe(JSON.stringify(records));
  });

  test('different seeds give different companies', () => {
    const a = generateDemoData({ seed: 1, companies: 30 });
    const b = generateDemoData({ seed: 2, companies: 30 });
    expect(a.filter((r, i) => r.companyNumber === b[i]!.companyNumber)).toEqual([]);
    expect(a.filter((r, i) => r.name === b[i]!.name).length).toBeLessThan(5);
  });

  test('a smaller count gives a prefix of the larger data set, holdings and contacts included', () => {
    expect(generateDemoData({ companies: 50 })).toEqual(records.slice(0, 50));
    expect(generateDemoData({ seed: 7, companies: 100 })).toEqual(
      generateDemoData({ seed: 7, companies: 300 }).slice(0, 100),
    );
  });

  test('demoRecords is lazy and yields what generateDemoData returns', () => {
    // Three million companies would take minutes: taking the first ten proves nothing else is generated.
    const lazy = demoRecords({ companies: 3_000_000 });
    const first: DemoRecord[] = [];
    for (const record of lazy) {
      first.push(record);
      if (first.length === 10) break;
    }
    expect(first).toEqual(records.slice(0, 10));
  });

  test('a count or seed that is not an integer in range is rejected at the call', () => {
    expect(() => demoRecords({ companies: -1 })).toThrow(RangeError);
    expect(() => demoRecords({ companies: 1.5 })).toThrow(RangeError);
    expect(() => demoRecords({ companies: 3_000_001 })).toThrow(RangeError);
    expect(() => generateDemoData({ seed: 0.5 })).toThrow(RangeError);
    expect(generateDemoData({ companies: 0 })).toEqual([]);
  });
});

describe('demo company records', () => {
  test('every record passes the import validation and is already canonical', () => {
    const rejected = records
      .map((r) => ({ r, parsed: parseCompanyRecord(JSON.parse(JSON.stringify(r))) }))
      .filter(({ r, parsed }) => !parsed.ok || parsed.record.companyNumber !== r.companyNumber)
      .map(({ r, parsed }) => ({
        company: r.companyNumber,
        reason: parsed.ok ? 'not canonical' : parsed.reason,
      }));
    expect(rejected).toEqual([]);
  });

  test('a sample of 30,000 companies passes the validation and every holder it names is in it', () => {
    const names = new Map<string, string>();
    const problems: string[] = [];
    let index = 0;
    for (const record of demoRecords({ companies: 30_000 })) {
      if (index % 7 === 0) {
        const parsed = parseCompanyRecord(record);
        if (!parsed.ok) problems.push(`${record.companyNumber}: ${parsed.reason}`);
      }
      for (const holder of record.shareholders.filter(isOurs)) {
        const name = names.get(`${holder.country}#${holder.companyNumber}`);
        if (name === undefined ? !holder.companyNumber!.startsWith('01') : name !== holder.name)
          problems.push(`${record.companyNumber}: holder ${holder.companyNumber} ${holder.name}`);
      }
      names.set(`${record.country}#${record.companyNumber}`, record.name);
      index++;
    }
    expect(problems).toEqual([]);
    expect(names.size).toBe(30_000);
  });

  test('records have every field of the contract, in its order', () => {
    expect(records.filter((r) => JSON.stringify(Object.keys(r)) !== JSON.stringify(RECORD_KEYS))).toEqual([]);
  });

  test('the default count is 3000, spread evenly over BE, NL and FR', () => {
    expect(DEFAULT_DEMO_COMPANIES).toBe(3000);
    expect(records).toHaveLength(3000);
    for (const country of COUNTRIES) {
      expect(records.filter((r) => r.country === country)).toHaveLength(1000);
    }
  });

  test('every company number is canonical, valid for its country and unique', () => {
    expect(records.filter((r) => parseCompanyNumber(r.country, r.companyNumber) !== r.companyNumber)).toEqual(
      [],
    );
    expect(indexByKey.size).toBe(records.length);
  });

  test('VAT numbers follow the country format and match the company number', () => {
    const wrong = records.filter(({ country, companyNumber, vatNumber }) => {
      switch (country) {
        case 'BE':
          return vatNumber !== `BE${companyNumber}`;
        case 'NL':
          return !/^NL\d{9}B01$/.test(vatNumber);
        case 'FR':
          return vatNumber !== `FR${String(frenchVatKey(companyNumber)).padStart(2, '0')}${companyNumber}`;
      }
    });
    expect(wrong).toEqual([]);
  });

  test('legal forms are typical of the country, names end in them and are mostly unique', () => {
    const wrong = records.filter((r) => {
      const forms: readonly string[] = LEGAL_FORMS[r.country];
      return (
        !forms.includes(r.legalForm) ||
        !r.name.endsWith(` ${r.legalForm}`) ||
        r.name.length < r.legalForm.length + 5
      );
    });
    expect(wrong).toEqual([]);
    expect(new Set(records.map((r) => r.name)).size).toBeGreaterThan(records.length * 0.95);
    for (const country of COUNTRIES) {
      expect(
        new Set(records.filter((r) => r.country === country).map((r) => r.legalForm)).size,
      ).toBeGreaterThanOrEqual(3);
    }
  });

  test('every company has a place, from at least 14 towns per country', () => {
    for (const country of COUNTRIES) {
      const places = records.filter((r) => r.country === country).map((r) => r.place);
      expect(places.filter((p) => p.trim() === '')).toEqual([]);
      expect(new Set(places).size).toBeGreaterThanOrEqual(14);
    }
  });

  test('most companies have a lowercase https website on the country domain', () => {
    const withoutSite = records.filter((r) => r.website === null).length;
    expect(withoutSite).toBeGreaterThan(records.length * 0.05);
    expect(withoutSite).toBeLessThan(records.length * 0.2);
    const wrong = records.filter(
      (r) =>
        r.website !== null &&
        !new RegExp(`^https://www\\.[a-z0-9]+(-[a-z0-9]+)*\\.${r.country.toLowerCase()}$`).test(r.website),
    );
    expect(wrong).toEqual([]);
  });

  test('companies are founded before their first period, some just before, some decades before', () => {
    expect(records.filter((r) => !(r.foundedOn < chronological(r)[0]!.startDate))).toEqual([]);
    const yearsBefore = records.map(
      (r) => utc(chronological(r)[0]!.startDate).getUTCFullYear() - utc(r.foundedOn).getUTCFullYear(),
    );
    expect(yearsBefore.filter((y) => y <= 1).length).toBeGreaterThan(records.length * 0.2);
    expect(yearsBefore.filter((y) => y >= 20).length).toBeGreaterThan(records.length * 0.1);
  });

  test('Belgian numbers starting with 1 belong to companies founded since 2023', () => {
    const wrong = records.filter(
      (r) => r.country === 'BE' && r.companyNumber.startsWith('1') !== r.foundedOn >= '2023-01-01',
    );
    expect(wrong).toEqual([]);
  });

  test('pickExamples returns the first company with at least 5 periods for each country', () => {
    const examples = pickExamples(records);
    expect(examples.map((r) => r.country)).toEqual(['BE', 'NL', 'FR']);
    for (const example of examples) {
      expect(example).toBe(records.find((r) => r.country === example.country && r.financials.length >= 5));
    }
  });
});

describe('demo activities', () => {
  test('1 to 3 distinct NACE-BEL codes per company, all known subclasses', () => {
    const wrong = records.filter(
      ({ activities }) =>
        activities.length < 1 ||
        activities.length > 3 ||
        new Set(activities).size !== activities.length ||
        activities.some((code) => !NACE_CODES.has(code)),
    );
    expect(wrong).toEqual([]);
  });

  test('the main activity fits the name', () => {
    const fits: [RegExp, RegExp][] = [
      [/\b(Bouwbedrijf|Aannemingen|Construction|Bâtiment)\b/, /^4[13]/],
      [/\b(Bakkerij|Boulangerie)\b/, /^(10712|47241)$/],
      [/\b(Restaurant|Bistrot)\b/, /^56/],
      [/\b(Software|Informatique|ICT)\b/, /^6[23]/],
      [/\b(Transport|Transports|Logistics|Logistique)\b/, /^(49|52)/],
      [/\b(Groothandel|Négoce|Trading)\b/, /^46/],
      [/\b(Hotel|Hôtel)\b/, /^55/],
      [/\b(Vastgoed|Immobilier|Immobilière)\b/, /^(68|41)/],
      [/\b(Holding|Participations)\b/, /^70100$/],
    ];
    for (const [name, code] of fits) {
      const named = records.filter((r) => name.test(r.name));
      expect(named.length).toBeGreaterThan(10);
      expect(
        named.filter((r) => !code.test(r.activities[0]!)).map((r) => `${r.name}: ${r.activities[0]}`),
      ).toEqual([]);
    }
  });
});

describe('demo financial periods', () => {
  test('every company has 1 to 10 periods, newest first, with unique end dates', () => {
    const wrong = records.filter((r) => {
      const ends = r.financials.map((p) => p.endDate);
      return ends.length < 1 || ends.length > 10 || ends.some((end, i) => i > 0 && end >= ends[i - 1]!);
    });
    expect(wrong).toEqual([]);
  });

  test('period keys come in the contract order, nested groups too', () => {
    const order = (p: FinancialPeriod): string =>
      JSON.stringify([
        Object.keys(p),
        Object.keys(p.profitability),
        Object.keys(p.liquidity),
        Object.keys(p.solvency),
        Object.keys(p.people),
      ]);
    const expected = JSON.stringify([
      PERIOD_KEYS.period,
      PERIOD_KEYS.profitability,
      PERIOD_KEYS.liquidity,
      PERIOD_KEYS.solvency,
      PERIOD_KEYS.people,
    ]);
    expect(periods.filter((p) => order(p) !== expected)).toEqual([]);
  });

  test('periods are whole calendar or July–June years, consecutive, the newest ending by 2025-12-31', () => {
    const wrong = periods.filter((p) => {
      const year = Number(p.endDate.slice(0, 4));
      const calendar = p.startDate === `${year}-01-01` && p.endDate === `${year}-12-31`;
      const midYear = p.startDate === `${year - 1}-07-01` && p.endDate === `${year}-06-30`;
      return !(calendar || midYear) || p.endDate > '2025-12-31';
    });
    expect(wrong).toEqual([]);
    expect(
      consecutive.filter(({ before, after }) => after.startDate !== addDaysIso(before.endDate, 1)),
    ).toEqual([]);
    const midYear = records.filter((r) => r.financials[0]!.endDate.endsWith('-06-30')).length;
    expect(midYear).toBeGreaterThan(records.length * 0.1);
    expect(midYear).toBeLessThan(records.length * 0.2);
  });

  test('accounts are received 3 to 7 months after the period ends, never after 2026-11-20', () => {
    const wrong = periods.filter((p) => {
      const end = utc(p.endDate);
      const earliest = new Date(Date.UTC(end.getUTCFullYear(), end.getUTCMonth() + 3, end.getUTCDate()));
      // The last day of the 7th month after the end month.
      const latest = new Date(Date.UTC(end.getUTCFullYear(), end.getUTCMonth() + 8, 0));
      const received = utc(p.dateReceived);
      return received < earliest || received > latest || p.dateReceived > '2026-11-20';
    });
    expect(wrong).toEqual([]);
  });

  test('amounts have at most 2 decimals, ratios at most 4, counts are whole', () => {
    const wrong = periods.filter(({ profitability, liquidity: l, solvency, people }) => {
      const amounts = [
        ...Object.values(profitability),
        l.cash,
        l.cashFlow,
        l.netWorkingCapital,
        l.netWorkingCapitalRequirement,
      ];
      amounts.push(...Object.values(solvency));
      const ratios = [l.currentRatio, l.quickRatio, people.employeeMaleRatio, people.employeeFemaleRatio];
      return (
        amounts.some((x) => x !== null && !hasAtMostDecimals(x, 2)) ||
        ratios.some((x) => x !== null && !hasAtMostDecimals(x, 4)) ||
        !Number.isInteger(people.employees) ||
        !Number.isInteger(people.newHires)
      );
    });
    expect(wrong).toEqual([]);
  });

  test('equity + debt = total assets and debt = long-term + short-term debt, to the cent', () => {
    const wrong = periods.filter(
      ({ solvency: s }) =>
        cents(s.equity) + cents(s.debt) !== cents(s.totalAssets) ||
        cents(s.longTermDebt) + cents(s.shortTermDebt) !== cents(s.debt),
    );
    expect(wrong).toEqual([]);
  });

  test('financial and accounts-payable debt are parts of their term, never more', () => {
    const wrong = periods.filter(
      ({ solvency: s }) =>
        cents(s.longTermDebtFinancial) + cents(s.longTermDebtAccountsPayable) > cents(s.longTermDebt) ||
        cents(s.shortTermDebtFinancial) + cents(s.shortTermDebtAccountsPayable) > cents(s.shortTermDebt) ||
        [
          s.totalAssets,
          s.debt,
          s.longTermDebt,
          s.shortTermDebt,
          s.longTermDebtFinancial,
          s.shortTermDebtFinancial,
        ].some((x) => x! < 0),
    );
    expect(wrong).toEqual([]);
    // Long-term accounts payable are rare but present.
    expect(periods.filter((p) => p.solvency.longTermDebtAccountsPayable! > 0).length).toBeGreaterThan(100);
  });

  test('ebitda ≥ ebit, and cash flow is net profit plus depreciation', () => {
    const wrong = periods.filter(
      ({ profitability: pr, liquidity: l }) =>
        pr.ebitda! < pr.ebit! ||
        cents(l.cashFlow) !== cents(pr.netProfit) + cents(pr.ebitda) - cents(pr.ebit),
    );
    expect(wrong).toEqual([]);
  });

  test('net working capital − its requirement = cash, and the ratios are the ones shown', () => {
    const wrong = periods.filter(({ liquidity: l, solvency: s }) => {
      const currentAssets = cents(l.netWorkingCapital) + cents(s.shortTermDebt);
      return (
        cents(l.netWorkingCapital) - cents(l.netWorkingCapitalRequirement) !== cents(l.cash) ||
        l.cash! < 0 ||
        Math.abs(l.currentRatio! - currentAssets / cents(s.shortTermDebt)) > 0.00005 ||
        l.quickRatio! > l.currentRatio!
      );
    });
    expect(wrong).toEqual([]);
  });

  test('male + female ratio is 1 with staff, both null without', () => {
    const wrong = periods.filter(({ people: p }) =>
      p.employees! > 0
        ? Math.round((p.employeeMaleRatio! + p.employeeFemaleRatio!) * 10_000) !== 10_000
        : p.employeeMaleRatio !== null || p.employeeFemaleRatio !== null || p.newHires !== 0,
    );
    expect(wrong).toEqual([]);
    expect(periods.filter((p) => p.people.employees === 0).length).toBeGreaterThan(500);
  });

  test('only revenue and capital are ever undisclosed (null)', () => {
    const wrong = periods.filter(({ profitability, liquidity, solvency, people }) => {
      const disclosed = [
        ...Object.entries(profitability).filter(([key]) => key !== 'revenue'),
        ...Object.entries(liquidity),
        ...Object.entries(solvency).filter(([key]) => key !== 'capital'),
        ['employees', people.employees],
        ['newHires', people.newHires],
      ];
      return disclosed.some(([, value]) => value === null);
    });
    expect(wrong).toEqual([]);
  });

  test('revenue is left out only by small Belgian companies (abbreviated accounts), by most of them', () => {
    const wrong = records.filter((r) =>
      r.financials.some(
        (p) => p.profitability.revenue === null && (r.country !== 'BE' || p.people.employees! > 50),
      ),
    );
    expect(wrong).toEqual([]);
    const small = records
      .filter((r) => r.country === 'BE')
      .flatMap((r) => r.financials)
      .filter((p) => p.people.employees! <= 50);
    const share = small.filter((p) => p.profitability.revenue === null).length / small.length;
    expect(share).toBeGreaterThan(0.4);
    expect(share).toBeLessThan(0.75);
  });

  test('capital is null for Belgian BV/SRL/CommV since 2020 and Dutch V.O.F., given otherwise', () => {
    const wrong = records.filter((r) =>
      r.financials.some((p) => {
        const noCapital =
          r.legalForm === 'V.O.F.' ||
          (['BV', 'SRL', 'CommV'].includes(r.legalForm) && p.startDate >= '2020-01-01');
        return (p.solvency.capital === null) !== noCapital;
      }),
    );
    expect(wrong).toEqual([]);
    expect(periods.filter((p) => p.solvency.capital === null).length).toBeGreaterThan(periods.length * 0.1);
  });

  test('companies range from no staff to large, and some make losses', () => {
    const latestEmployees = records.map((r) => r.financials[0]!.people.employees!);
    expect(latestEmployees.filter((e) => e < 10).length).toBeGreaterThan(1000);
    expect(latestEmployees.filter((e) => e >= 250).length).toBeGreaterThan(100);
    const lossShare = periods.filter((p) => p.profitability.netProfit! < 0).length / periods.length;
    expect(lossShare).toBeGreaterThan(0.1);
    expect(lossShare).toBeLessThan(0.4);
    expect(periods.filter((p) => p.profitability.grossMargin! < 0).length).toBeGreaterThan(10);
  });

  test('equity carries over: last year plus part of a profit, or minus the whole loss', () => {
    const wrong = consecutive.filter(({ before, after }) => {
      const change = cents(after.solvency.equity) - cents(before.solvency.equity);
      const profit = cents(after.profitability.netProfit);
      return profit >= 0 ? change < 0 || change > profit : change !== profit;
    });
    expect(wrong).toEqual([]);
  });

  test('health indicators are the published model of the figures, cover 0..10, and better figures score higher', () => {
    expect(
      periods.filter((p) => p.healthIndicator === null || p.healthIndicator !== healthOfFigures(p)),
    ).toEqual([]);
    expect(new Set(periods.map((p) => p.healthIndicator)).size).toBe(11);
    const average = (ps: FinancialPeriod[]): number => sum(ps.map((p) => p.healthIndicator!)) / ps.length;
    const equityRatio = (p: FinancialPeriod): number => p.solvency.equity! / p.solvency.totalAssets!;
    const strong = periods.filter(
      (p) => equityRatio(p) >= 0.4 && p.liquidity.currentRatio! >= 1.5 && p.profitability.netProfit! > 0,
    );
    const weak = periods.filter((p) => equityRatio(p) < 0 && p.profitability.netProfit! < 0);
    expect(strong.length).toBeGreaterThan(100);
    expect(weak.length).toBeGreaterThan(100);
    expect(average(strong)).toBeGreaterThan(average(weak) + 4);
  });

  test('the data derives updates: gross-margin growth of 10% and more, and health drops', () => {
    const growth = consecutive.filter(
      ({ before, after }) =>
        before.profitability.grossMargin! > 0 &&
        after.profitability.grossMargin! >= before.profitability.grossMargin! * 1.1,
    );
    const drops = consecutive.filter(({ before, after }) => after.healthIndicator! < before.healthIndicator!);
    expect(new Set(growth.map((g) => g.company)).size).toBeGreaterThan(300);
    expect(new Set(drops.map((d) => d.company)).size).toBeGreaterThan(300);
    // Not every pair: most years are unremarkable.
    expect(growth.length).toBeLessThan(consecutive.length * 0.35);
  });

  test('joint committee codes: 1–2 Belgian codes, one 4-digit French IDCC, none in NL or without staff', () => {
    const wrong = records.filter((r) =>
      r.financials.some(({ jointCommitteeCodes: codes, people }) => {
        if (people.employees === 0 || r.country === 'NL') return codes.length !== 0;
        return r.country === 'BE'
          ? codes.length < 1 || codes.length > 2 || codes.some((c) => !/^\d{3}(\.\d{2})?$/.test(c))
          : codes.length !== 1 || !/^\d{4}$/.test(codes[0]!);
      }),
    );
    expect(wrong).toEqual([]);
  });
});

describe('demo shareholders', () => {
  test('percentages are 4-decimal shares in (0, 1] adding up to at most 1, in any order', () => {
    const wrong = records.filter(({ shareholders }) => {
      const shares = shareholders.map((s) => s.percentage);
      const largestFirst = [...shares].sort((a, b) => b - a);
      return (
        shares.some((p) => !(p > 0 && p <= 1) || !hasAtMostDecimals(p, 4)) ||
        sum(shares) > 1 ||
        sum(largestFirst) > 1
      );
    });
    expect(wrong).toEqual([]);
  });

  test('a registered holder is an earlier company of the data, under its exact name; never itself', () => {
    const wrong = registered.filter(({ index, holder }) => {
      const holderIndex = indexByKey.get(`${holder.country}#${holder.companyNumber}`);
      if (holderIndex === undefined) return !holder.companyNumber!.startsWith('01');
      return holderIndex >= index || records[holderIndex]!.name !== holder.name;
    });
    expect(wrong).toEqual([]);
  });

  test('a few holders are Belgian companies outside the data, with a valid number', () => {
    const outside = registered.filter(
      ({ holder }) => !indexByKey.has(`${holder.country}#${holder.companyNumber}`),
    );
    expect(outside.length).toBeGreaterThan(0);
    expect(outside.length).toBeLessThan(records.length * 0.01);
    expect(
      outside.filter(
        ({ holder }) => holder.country !== 'BE' || parseCompanyNumber('BE', holder.companyNumber) === null,
      ),
    ).toEqual([]);
  });

  test('holdings control subsidiaries (> 50 %), some across the border, several each', () => {
    const control = registered.filter(
      ({ holder }) => holder.percentage > 0.5 && indexByKey.has(`${holder.country}#${holder.companyNumber}`),
    );
    expect(control.length).toBeGreaterThan(300);
    const holders = control.map(
      ({ holder }) => records[indexByKey.get(`${holder.country}#${holder.companyNumber}`)!]!,
    );
    expect(holders.filter((h) => !isHolding(h))).toEqual([]);
    expect(
      control.filter(({ company, holder }) => company.country !== holder.country).length,
    ).toBeGreaterThan(20);
    const subsidiaries = new Map<DemoRecord, number>();
    for (const h of holders) subsidiaries.set(h, (subsidiaries.get(h) ?? 0) + 1);
    expect([...subsidiaries.values()].filter((n) => n >= 3).length).toBeGreaterThan(30);
    // Holdings themselves are held by families, and some by another holding (a chain).
    expect(control.filter(({ company }) => isHolding(company)).length).toBeGreaterThan(5);
  });

  test('joint ventures are held exactly 50 % (not control) and minority stakes exist', () => {
    expect(registered.filter(({ holder }) => holder.percentage === 0.5).length).toBeGreaterThan(50);
    expect(registered.filter(({ holder }) => holder.percentage < 0.5).length).toBeGreaterThan(50);
  });

  test('persons are named "First Last" with no country or number', () => {
    const persons = shareholdings.filter(({ holder }) => isPerson(holder));
    expect(persons.length).toBeGreaterThan(1000);
    expect(
      persons.filter(({ holder }) => !/^\S+ \S.*$/.test(holder.name) || holder.name.length > 60),
    ).toEqual([]);
    const wrong = shareholdings.filter(
      ({ holder }) =>
        !isPerson(holder) && (holder.country === undefined || holder.companyNumber === undefined),
    );
    expect(wrong).toEqual([]);
  });

  test('a few holders are German or Luxembourg companies, never resolved to ours', () => {
    const foreign = shareholdings.filter(({ holder }) => !isPerson(holder) && !isOurs(holder));
    expect(foreign.length).toBeGreaterThan(20);
    expect(foreign.length).toBeLessThan(records.length * 0.05);
    const wrong = foreign.filter(
      ({ holder: h }) =>
        !(h.country === 'DE' && /^HRB \d+$/.test(h.companyNumber!) && h.name.endsWith('GmbH')) &&
        !(h.country === 'LU' && /^B\d+$/.test(h.companyNumber!) && /(S\.A\.|S\.à r\.l\.)$/.test(h.name)),
    );
    expect(wrong).toEqual([]);
  });

  test('many companies have no known shareholders', () => {
    const without = records.filter((r) => r.shareholders.length === 0).length;
    expect(without).toBeGreaterThan(records.length * 0.15);
    expect(without).toBeLessThan(records.length * 0.5);
  });
});

describe('demo contacts', () => {
  test('0 to 6 contacts per company, ids positive, stable and unique across the data set', () => {
    expect(records.filter((r) => r.contacts.length > 6)).toEqual([]);
    const ids = records.flatMap((r) => r.contacts.map((c) => c.contactId));
    expect(ids.filter((id) => !Number.isSafeInteger(id) || id < 1)).toEqual([]);
    expect(new Set(ids).size).toBe(ids.length);
    expect(records.filter((r) => r.contacts.length === 0).length).toBeGreaterThan(100);
    expect(records.filter((r) => r.contacts.length >= 5).length).toBeGreaterThan(50);
  });

  test('contacts have a first and last name, distinct within the company, and a job title', () => {
    const wrong = records.filter((r) => {
      const names = r.contacts.map((c) => `${c.firstName} ${c.lastName}`);
      const titles = r.contacts.map((c) => c.jobTitle);
      return (
        new Set(names).size !== names.length ||
        new Set(titles).size !== titles.length ||
        r.contacts.some((c) => !c.firstName.trim() || !c.lastName.trim() || !c.jobTitle.trim())
      );
    });
    expect(wrong).toEqual([]);
  });

  test('the head of the company comes first, titled for the country and legal form', () => {
    const heads = records
      .filter((r) => r.contacts.length > 0)
      .map((r) => ({ r, title: r.contacts[0]!.jobTitle }));
    const expected = (r: DemoRecord): string[] => {
      switch (r.legalForm) {
        case 'BV':
        case 'CommV':
          return ['Zaakvoerder'];
        case 'NV':
          return ['Gedelegeerd bestuurder'];
        case 'SRL':
        case 'SARL':
        case 'EURL':
          return ['Gérant'];
        case 'SA':
          return [r.country === 'BE' ? 'Administrateur délégué' : 'Président-directeur général'];
        case 'SAS':
        case 'SASU':
          return ['Président', 'Directeur général'];
        case 'V.O.F.':
          return ['Vennoot'];
        default:
          return ['Directeur', 'Algemeen directeur'];
      }
    };
    expect(heads.filter(({ r, title }) => title !== 'CEO' && !expected(r).includes(title))).toEqual([]);
  });

  test('names fit the language area: Dutch surname particles are lower case after a first name', () => {
    const dutch = records.filter((r) => r.country === 'NL').flatMap((r) => r.contacts);
    expect(dutch.filter((c) => /^(De|Van|Ter) /.test(c.lastName))).toEqual([]);
    expect(dutch.filter((c) => /^(de|van|ter) /.test(c.lastName)).length).toBeGreaterThan(50);
    const flemish = records.filter((r) => r.country === 'BE').flatMap((r) => r.contacts);
    expect(flemish.filter((c) => /^(De|Van) /.test(c.lastName)).length).toBeGreaterThan(50);
    const french = records.filter((r) => r.country === 'FR').flatMap((r) => r.contacts);
    expect(french.filter((c) => /^(Jean|Marie|Nicolas|Nathalie)$/.test(c.firstName)).length).toBeGreaterThan(
      50,
    );
  });
});

describe('demo look-alikes', () => {
  test('families of companies share country, place, main activity and size band', () => {
    const band = (employees: number): number =>
      employees === 0 ? 0 : employees < 10 ? 1 : employees < 50 ? 2 : employees < 250 ? 3 : 4;
    const families = new Map<string, number>();
    for (const r of records) {
      const key = `${r.country}|${r.place}|${r.activities[0]}|${band(r.financials[0]!.people.employees!)}`;
      families.set(key, (families.get(key) ?? 0) + 1);
    }
    expect([...families.values()].filter((n) => n >= 3).length).toBeGreaterThan(50);
  });
});

describe('demo history: the older snapshot', () => {
  const older = olderSnapshotOf(records);
  const parse = (r: DemoRecord) => {
    const parsed = parseCompanyRecord(JSON.parse(JSON.stringify(r)));
    if (!parsed.ok) throw new Error(parsed.reason);
    return parsed.record;
  };
  const second = records.map((r, i) => deriveUpdates(parse(older[i]!), parse(r), '2026-11-21'));

  test('is what the generator streams for it, and valid for the import', () => {
    expect(generateDemoData({ companies: 300, snapshot: 'older' })).toEqual(older.slice(0, 300));
    expect(older.filter((r) => !parseCompanyRecord(JSON.parse(JSON.stringify(r))).ok)).toEqual([]);
  });

  test('holds the same companies, the periods received before its date, and people who left since', () => {
    const wrong = older.filter((r, i) => {
      const current = records[i]!;
      const kept = current.financials.filter((p) => p.dateReceived < DEMO_SNAPSHOT_DATE);
      return (
        r.companyNumber !== current.companyNumber ||
        JSON.stringify(r.financials) !== JSON.stringify(kept) ||
        JSON.stringify(r.contacts.slice(0, current.contacts.length)) !== JSON.stringify(current.contacts) ||
        JSON.stringify({ ...r, financials: [], contacts: [] }) !==
          JSON.stringify({ ...current, financials: [], contacts: [] })
      );
    });
    expect(wrong).toEqual([]);
  });

  test("leavers' contact ids are unique across both snapshots", () => {
    const ids = [...records, ...older].flatMap((r) => r.contacts.map((c) => c.contactId));
    expect(new Set(ids).size).toBe(new Set(older.flatMap((r) => r.contacts.map((c) => c.contactId))).size);
    const perCompany = older.map((r) => new Set(r.contacts.map((c) => `${c.firstName} ${c.lastName}`)).size);
    expect(perCompany).toEqual(older.map((r) => r.contacts.length));
  });

  test('then the current data derives every type of update, people leaving in every grammatical number', () => {
    const types = new Set(second.flat().map((u) => u.type));
    expect([...types].sort()).toEqual([
      'GROSS_MARGIN_GROWTH',
      'HEALTHDROP',
      'PEOPLE_LEFT',
      'PUBLISHED_FINANCIALS',
    ]);
    const counts = new Set(
      second.flat().flatMap((u) => (u.type === 'PEOPLE_LEFT' ? [Math.min(u.count, 5)] : [])),
    );
    expect([...counts].sort()).toEqual([1, 2, 3, 4, 5]);
    // Enough to see, few enough to keep `npm start` quick.
    const changed = second.filter((u) => u.length > 0).length;
    expect(changed).toBeGreaterThan(records.length * 0.1);
    expect(changed).toBeLessThan(records.length * 0.3);
  });
});
