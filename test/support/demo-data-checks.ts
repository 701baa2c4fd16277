/**
 * The default demo data set and the helpers the demo data tests share (generation is deterministic, so
 * each test file builds the same set).
 */
import type { FinancialPeriod } from '../../lib/companies/schemas';
import { generateDemoData } from '../fixtures/demo-data/companies';
import type { DemoRecord, DemoShareholder } from '../fixtures/demo-data/records';

// One default data set shared by the read-only checks (generation is deterministic). Checks over many
// records collect the offenders and expect none: one readable failure instead of thousands of expects.
export const records: DemoRecord[] = generateDemoData();
export const periods: FinancialPeriod[] = records.flatMap((r) => r.financials);
export const indexByKey = new Map(records.map((r, i) => [`${r.country}#${r.companyNumber}`, i]));

export const LEGAL_FORMS = {
  BE: ['NV', 'BV', 'SRL', 'SA', 'CommV'],
  NL: ['B.V.', 'N.V.', 'V.O.F.'],
  FR: ['SAS', 'SARL', 'SA', 'SASU', 'EURL'],
} as const;

/** NACE-BEL 2008 subclasses the demo may use, checked by hand against the nomenclature. */
export const NACE_CODES = new Set(
  `10130 10510 10712 10720 10821 10850 10890 11050 16230 25110 25620 25730 28990 33120 41101 41201 41202
   43211 43221 43222 43320 43390 43910 43999 46190 46310 46380 46390 46410 46420 46510 46520 46690 46730
   46740 46900 47220 47241 47250 47290 47410 47520 47710 49320 49390 49410 52100 52290 53200 55100 56101
   56102 56210 56290 56301 58290 62010 62020 62030 62090 63110 64200 68100 68201 68203 68311 68321 70100
   70210 70220 73110 74100 78100 81100 81210 81220 81300`.split(/\s+/),
);

export const cents = (x: number | null): number => Math.round(x! * 100);
export const hasAtMostDecimals = (x: number, decimals: number): boolean =>
  new RegExp(`^-?\\d+(\\.\\d{1,${decimals}})?$`).test(String(x));
export const sum = (xs: number[]): number => xs.reduce((total, x) => total + x, 0);

/** Oldest first (records may list them in any order). */
export const chronological = (r: DemoRecord): FinancialPeriod[] =>
  [...r.financials].sort((a, b) => a.endDate.localeCompare(b.endDate));

/** Pairs of consecutive periods, oldest first, for every company. */
export const consecutive: { company: DemoRecord; before: FinancialPeriod; after: FinancialPeriod }[] =
  records.flatMap((company) => {
    const ps = chronological(company);
    return ps.slice(1).map((after, i) => ({ company, before: ps[i]!, after }));
  });

export const utc = (iso: string): Date => new Date(`${iso}T00:00:00Z`);
export const addDaysIso = (iso: string, days: number): string =>
  new Date(utc(iso).getTime() + days * 86_400_000).toISOString().slice(0, 10);

export const isPerson = (s: DemoShareholder): boolean =>
  s.country === undefined && s.companyNumber === undefined;
export const isOurs = (s: DemoShareholder): boolean =>
  s.country === 'BE' || s.country === 'NL' || s.country === 'FR';
export const shareholdings = records.flatMap((company, index) =>
  company.shareholders.map((holder) => ({ company, index, holder })),
);
export const registered = shareholdings.filter(({ holder }) => isOurs(holder));
export const isHolding = (r: DemoRecord): boolean => r.activities[0] === '70100';
