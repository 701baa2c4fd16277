/**
 * The one mapping of filings to the figures of a financial period (contract §6.1, §11.4): per §6.1
 * field, the Belgian rubric codes (CBSO) or French ratio columns (INPI) it comes from, how a computed
 * field is derived, and how sure the mapping is (`registries.md` §3: confirmed, observed, UNCONFIRMED;
 * `contract` where §11.4 itself names the rubric). The code computes the figures from these rows, and
 * docs/financials.md shows the same rows (`mappingTableMarkdown`; a test compares them).
 *
 * Amounts are computed in integer cents, so the identities of §6.1 hold to the cent by construction
 * among the figures present; a rubric the filing lacks is not disclosed, and so is every figure
 * computed from it (`null`, never a guess).
 */
import type { FinancialPeriod } from '../companies/schemas';

export type Confidence = 'contract' | 'confirmed' | 'observed' | 'UNCONFIRMED';

type Groups = Pick<FinancialPeriod, 'profitability' | 'liquidity' | 'solvency' | 'people'>;
export type Group = keyof Groups;
export type Figures = { [G in Group]: { [K in keyof Groups[G]]: number | null } };

/** A figure's value from the filing: cents for amounts, the plain number for ratios and counts. */
type Value = number | null;

/** A Belgian filing's current-year rubrics (`Period` `N`), each in integer cents. */
export interface Rubrics {
  get(code: string): Value;
}

/** A French ratios row's columns as numbers (empty cells null). */
export type RatioRow = Record<string, Value>;

export interface SourceMapping<I> {
  /** What it reads, as the documentation shows it (`70`, `20/58 − 10/15`), or `—` when nothing. */
  source: string;
  confidence: Confidence;
  /** Why it is null, or how it is derived, in a few words. */
  note?: string;
  compute: (input: I) => Value;
}

export interface MappingRow {
  group: Group;
  field: string;
  kind: 'amount' | 'ratio' | 'count';
  cbso: SourceMapping<Rubrics>;
  inpi: SourceMapping<RatioRow>;
}

/**
 * Every term present, else null: a sum over an undisclosed rubric is undisclosed. (A plain loop: the
 * conversion runs it for every figure of every filing.)
 */
const all = (codes: string[], f: (...cents: number[]) => number) => {
  // One array of the terms per row, filled again on each call (the mapping runs synchronously).
  const values = codes.map(() => 0);
  return (r: Rubrics): Value => {
    for (let i = 0; i < codes.length; i++) {
      const value = r.get(codes[i]!);
      if (value === null) return null;
      values[i] = value;
    }
    return f(...values);
  };
};
const rubric = (code: string) => (r: Rubrics) => r.get(code);
const column = (name: string) => (row: RatioRow) => row[name] ?? null;
const none = () => null;
/** A ratio of two amounts to 4 places; null when the denominator is not positive. */
const ratio4 = (a: number, b: number) => (b > 0 ? Math.round((a / b) * 10_000) / 10_000 : NaN);

const NOT_IN_RATIOS = 'the ratios file gives ratios, not this amount';
const NO_PEOPLE_IN_RATIOS = 'the ratios file gives no staff figures';
const inpiNone = (note: string): SourceMapping<RatioRow> => ({
  source: '—',
  confidence: 'observed',
  note,
  compute: none,
});

/** The rows, in the contract's order of the groups and their keys. */
export const MAPPING: readonly MappingRow[] = [
  {
    group: 'profitability',
    field: 'revenue',
    kind: 'amount',
    cbso: {
      source: '70',
      confidence: 'contract',
      note: 'not required in abbreviated and micro accounts',
      compute: rubric('70'),
    },
    inpi: { source: 'chiffre_d_affaires', confidence: 'contract', compute: column('chiffre_d_affaires') },
  },
  {
    group: 'profitability',
    field: 'grossMargin',
    kind: 'amount',
    cbso: {
      source: '9900, else 70 + 71 + 72 + 74 − 60 − 61',
      confidence: 'UNCONFIRMED',
      note: 'abbreviated and micro accounts give 9900; the full model its terms (70, 60, 61 needed; 71, 72, 74 are empty lines when absent)',
      compute: (r) => {
        const given = r.get('9900');
        if (given !== null) return given;
        const [revenue, goods, services] = [r.get('70'), r.get('60'), r.get('61')];
        if (revenue === null || goods === null || services === null) return null;
        const other = (r.get('71') ?? 0) + (r.get('72') ?? 0) + (r.get('74') ?? 0);
        return revenue + other - goods - services;
      },
    },
    inpi: { source: 'marge_brute', confidence: 'contract', compute: column('marge_brute') },
  },
  {
    group: 'profitability',
    field: 'ebitda',
    kind: 'amount',
    cbso: {
      source: '9901 + 630',
      confidence: 'confirmed',
      note: 'operating profit plus depreciation of formation expenses and fixed assets; null when 630 is negative (ebitda ≥ ebit)',
      compute: all(['9901', '630'], (ebit, depreciation) => (depreciation < 0 ? NaN : ebit + depreciation)),
    },
    inpi: {
      source: 'ebe',
      confidence: 'contract',
      note: 'null when below ebit (ebitda ≥ ebit)',
      compute: column('ebe'),
    },
  },
  {
    group: 'profitability',
    field: 'ebit',
    kind: 'amount',
    cbso: { source: '9901', confidence: 'contract', compute: rubric('9901') },
    inpi: { source: 'ebit', confidence: 'contract', compute: column('ebit') },
  },
  {
    group: 'profitability',
    field: 'netProfit',
    kind: 'amount',
    cbso: {
      source: '9904',
      confidence: 'UNCONFIRMED',
      note: 'profit (loss) for the period; one source reads 9903 so',
      compute: rubric('9904'),
    },
    inpi: { source: 'resultat_net', confidence: 'contract', compute: column('resultat_net') },
  },
  {
    group: 'liquidity',
    field: 'cash',
    kind: 'amount',
    cbso: { source: '54/58', confidence: 'contract', compute: rubric('54/58') },
    inpi: inpiNone(NOT_IN_RATIOS),
  },
  {
    group: 'liquidity',
    field: 'cashFlow',
    kind: 'amount',
    cbso: {
      source: '9904 + 630',
      confidence: 'UNCONFIRMED',
      note: 'net profit plus depreciation',
      compute: all(['9904', '630'], (profit, depreciation) => profit + depreciation),
    },
    inpi: inpiNone(NOT_IN_RATIOS),
  },
  {
    group: 'liquidity',
    field: 'netWorkingCapital',
    kind: 'amount',
    cbso: {
      source: '29/58 − 42/48',
      confidence: 'confirmed',
      note: 'current assets less amounts payable within one year',
      compute: all(['29/58', '42/48'], (current, payable) => current - payable),
    },
    inpi: inpiNone(NOT_IN_RATIOS),
  },
  {
    group: 'liquidity',
    field: 'netWorkingCapitalRequirement',
    kind: 'amount',
    cbso: {
      source: '29/58 − 42/48 − 54/58',
      confidence: 'confirmed',
      note: 'netWorkingCapital − cash',
      compute: all(['29/58', '42/48', '54/58'], (current, payable, cash) => current - payable - cash),
    },
    inpi: inpiNone(NOT_IN_RATIOS),
  },
  {
    group: 'liquidity',
    field: 'currentRatio',
    kind: 'ratio',
    cbso: {
      source: '29/58 ÷ 42/48',
      confidence: 'confirmed',
      note: 'null without amounts payable within one year',
      compute: all(['29/58', '42/48'], ratio4),
    },
    inpi: inpiNone('ratio_de_liquidite is read by the health model only: its unit (percent) is UNCONFIRMED'),
  },
  {
    group: 'liquidity',
    field: 'quickRatio',
    kind: 'ratio',
    cbso: {
      source: '(29/58 − 3) ÷ 42/48',
      confidence: 'confirmed',
      note: 'current assets without stocks and contracts in progress',
      compute: all(['29/58', '3', '42/48'], (current, stocks, payable) => ratio4(current - stocks, payable)),
    },
    inpi: inpiNone(NOT_IN_RATIOS),
  },
  {
    group: 'solvency',
    field: 'totalAssets',
    kind: 'amount',
    cbso: { source: '20/58', confidence: 'contract', compute: rubric('20/58') },
    inpi: inpiNone(NOT_IN_RATIOS),
  },
  {
    group: 'solvency',
    field: 'equity',
    kind: 'amount',
    cbso: { source: '10/15', confidence: 'contract', compute: rubric('10/15') },
    inpi: inpiNone(NOT_IN_RATIOS),
  },
  {
    group: 'solvency',
    field: 'capital',
    kind: 'amount',
    cbso: {
      source: '10',
      confidence: 'confirmed',
      note: 'companies without capital (BV/SRL under the 2019 Companies Code) give none',
      compute: rubric('10'),
    },
    inpi: inpiNone(NOT_IN_RATIOS),
  },
  {
    group: 'solvency',
    field: 'retainedEarnings',
    kind: 'amount',
    cbso: {
      source: '13 + 14',
      confidence: 'UNCONFIRMED',
      note: 'reserves plus accumulated profits (losses)',
      compute: all(['13', '14'], (reserves, accumulated) => reserves + accumulated),
    },
    inpi: inpiNone(NOT_IN_RATIOS),
  },
  {
    group: 'solvency',
    field: 'debt',
    kind: 'amount',
    cbso: {
      source: '20/58 − 10/15',
      confidence: 'contract',
      note: 'provisions, amounts payable and accruals',
      compute: all(['20/58', '10/15'], (assets, equity) => assets - equity),
    },
    inpi: inpiNone(NOT_IN_RATIOS),
  },
  {
    group: 'solvency',
    field: 'longTermDebt',
    kind: 'amount',
    cbso: { source: '17', confidence: 'contract', compute: rubric('17') },
    inpi: inpiNone(NOT_IN_RATIOS),
  },
  {
    group: 'solvency',
    field: 'longTermDebtFinancial',
    kind: 'amount',
    cbso: {
      source: '170/4',
      confidence: 'UNCONFIRMED',
      note: 'financial debts after one year',
      compute: rubric('170/4'),
    },
    inpi: inpiNone(NOT_IN_RATIOS),
  },
  {
    group: 'solvency',
    field: 'longTermDebtAccountsPayable',
    kind: 'amount',
    cbso: {
      source: '175',
      confidence: 'UNCONFIRMED',
      note: 'trade debts after one year',
      compute: rubric('175'),
    },
    inpi: inpiNone(NOT_IN_RATIOS),
  },
  {
    group: 'solvency',
    field: 'shortTermDebt',
    kind: 'amount',
    cbso: {
      source: '20/58 − 10/15 − 17',
      confidence: 'contract',
      note: 'debt − longTermDebt: provisions and accruals with it',
      compute: all(['20/58', '10/15', '17'], (assets, equity, long) => assets - equity - long),
    },
    inpi: inpiNone(NOT_IN_RATIOS),
  },
  {
    group: 'solvency',
    field: 'shortTermDebtFinancial',
    kind: 'amount',
    cbso: {
      source: '43',
      confidence: 'UNCONFIRMED',
      note: 'financial debts within one year',
      compute: rubric('43'),
    },
    inpi: inpiNone(NOT_IN_RATIOS),
  },
  {
    group: 'solvency',
    field: 'shortTermDebtAccountsPayable',
    kind: 'amount',
    cbso: {
      source: '44',
      confidence: 'UNCONFIRMED',
      note: 'trade debts within one year',
      compute: rubric('44'),
    },
    inpi: inpiNone(NOT_IN_RATIOS),
  },
  {
    group: 'people',
    field: 'employees',
    kind: 'count',
    cbso: {
      source: '9087',
      confidence: 'contract',
      note: 'average FTE, rounded',
      compute: (r) => {
        const fte = r.get('9087');
        return fte === null ? null : Math.round(fte / 100);
      },
    },
    inpi: inpiNone(NO_PEOPLE_IN_RATIOS),
  },
  {
    group: 'people',
    field: 'newHires',
    kind: 'count',
    cbso: {
      source: '—',
      confidence: 'UNCONFIRMED',
      note: 'the social balance sheet’s entries are not read: their rubric codes are not known for sure',
      compute: none,
    },
    inpi: inpiNone(NO_PEOPLE_IN_RATIOS),
  },
  {
    group: 'people',
    field: 'employeeMaleRatio',
    kind: 'ratio',
    cbso: {
      source: '—',
      confidence: 'UNCONFIRMED',
      note: 'the social balance sheet’s split by gender is not read: its rubric codes are not known for sure',
      compute: none,
    },
    inpi: inpiNone(NO_PEOPLE_IN_RATIOS),
  },
  {
    group: 'people',
    field: 'employeeFemaleRatio',
    kind: 'ratio',
    cbso: {
      source: '—',
      confidence: 'UNCONFIRMED',
      note: 'as employeeMaleRatio',
      compute: none,
    },
    inpi: inpiNone(NO_PEOPLE_IN_RATIOS),
  },
];

/**
 * The rubric codes the Belgian side reads, as its `source` column names them: a converter keeps only
 * these of a filing's rubrics (a test checks that no `compute` reads another).
 */
export const RUBRIC_CODES: readonly string[] = [
  ...new Set(MAPPING.flatMap((row) => row.cbso.source.match(/\d+(?:\/\d+)?/g) ?? [])),
];
