/**
 * The rules a company record's financial periods must keep (contract §6.1, §11.1) that a schema cannot
 * say: unique end dates, and the identities between the figures of one period, checked to the cent.
 */
import type { FinancialPeriod } from './schemas';

const cents = (x: number) => Math.round(x * 100);
const eur = (c: number) => (c / 100).toFixed(2);

/** The identities of contract §6.1, checked to the cent wherever every term is disclosed. */
export function periodProblem(p: FinancialPeriod): string | null {
  const { profitability: pr, liquidity: l, solvency: s, people } = p;
  if (p.startDate >= p.endDate) return 'startDate must be before endDate';
  if (s.equity !== null && s.debt !== null && s.totalAssets !== null) {
    if (cents(s.equity) + cents(s.debt) !== cents(s.totalAssets))
      return `equity + debt must equal totalAssets (${eur(cents(s.equity))} + ${eur(cents(s.debt))} ≠ ${eur(cents(s.totalAssets))})`;
  }
  if (s.debt !== null && s.longTermDebt !== null && s.shortTermDebt !== null) {
    if (cents(s.longTermDebt) + cents(s.shortTermDebt) !== cents(s.debt))
      return 'debt must equal longTermDebt + shortTermDebt';
  }
  for (const term of ['longTermDebt', 'shortTermDebt'] as const) {
    const total = s[term];
    const parts = [s[`${term}Financial`], s[`${term}AccountsPayable`]];
    if (total === null) continue;
    const known = parts.reduce<number>((sum, part) => sum + (part === null ? 0 : cents(part)), 0);
    if (known > cents(total)) return `${term}Financial + ${term}AccountsPayable must not exceed ${term}`;
  }
  if (pr.ebitda !== null && pr.ebit !== null && pr.ebitda < pr.ebit) return 'ebitda must be ≥ ebit';
  if (l.netWorkingCapital !== null && l.netWorkingCapitalRequirement !== null && l.cash !== null) {
    if (cents(l.netWorkingCapital) - cents(l.netWorkingCapitalRequirement) !== cents(l.cash))
      return 'netWorkingCapital − netWorkingCapitalRequirement must equal cash';
  }
  if (people.employees !== null && people.employees > 0) {
    const { employeeMaleRatio: m, employeeFemaleRatio: f } = people;
    if (m !== null && f !== null && Math.round((m + f) * 10_000) !== 10_000)
      return 'employeeMaleRatio + employeeFemaleRatio must equal 1';
  }
  return null;
}

export function periodsProblem(periods: FinancialPeriod[]): string | null {
  const seen = new Set<string>();
  for (const [i, period] of periods.entries()) {
    if (seen.has(period.endDate)) return `financials[${i}].endDate ${period.endDate} appears twice`;
    seen.add(period.endDate);
    const problem = periodProblem(period);
    if (problem) return `financials[${i}]: ${problem}`;
  }
  return null;
}
