import type { FinancialPeriod } from '../../lib/companies/schemas';
import { healthOfFigures } from '../../lib/filings/health';
import { PERIOD_KEYS } from '../support/contract';
import {
  records,
  periods,
  cents,
  hasAtMostDecimals,
  sum,
  consecutive,
  utc,
  addDaysIso,
} from '../support/demo-data-checks';

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
