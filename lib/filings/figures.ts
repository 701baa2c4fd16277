/**
 * A filing's figures from its side of the mapping (lib/filings/mapping.ts), kept to what §6.1 allows,
 * and the mapping as the Markdown table docs/financials.md shows.
 */
import * as v from 'valibot';
import { financialPeriodSchema } from '../companies/schemas';
import {
  MAPPING,
  type Confidence,
  type Figures,
  type Group,
  type RatioRow,
  type Rubrics,
  type SourceMapping,
} from './mapping';

type Value = number | null;

const GROUP_NAMES = ['profitability', 'liquidity', 'solvency', 'people'] as const;

/** The figures of a filing from its source's side of the table, and how many could not be kept. */
export function figuresOf<S extends 'cbso' | 'inpi'>(
  source: S,
  input: S extends 'cbso' ? Rubrics : RatioRow,
): { figures: Figures; dropped: number } {
  const figures = {
    profitability: { ...EMPTY_GROUPS.profitability },
    liquidity: { ...EMPTY_GROUPS.liquidity },
    solvency: { ...EMPTY_GROUPS.solvency },
    people: { ...EMPTY_GROUPS.people },
  };
  let dropped = 0;
  for (const row of MAPPING) {
    const mapping = row[source] as SourceMapping<typeof input>;
    let value = mapping.compute(input);
    // NaN: a derivation that cannot hold (a negative depreciation, no denominator).
    if (value !== null && !Number.isFinite(value)) {
      value = null;
      dropped++;
    }
    // Amounts are cents here (Belgian rubrics) or whole euros (French columns, scaled by the reader).
    figures[row.group][row.field] = value === null ? null : row.kind === 'amount' ? value / 100 + 0 : value;
  }
  const held = keepIdentities(figures as Figures);
  return { figures: held.figures, dropped: dropped + held.dropped };
}

/**
 * Each group's fields in the mapping's order, all null: a filing's groups are copies of these, so that
 * they share one shape and setting a figure changes a field rather than adding one.
 */
const EMPTY_GROUPS = MAPPING.reduce(
  (groups, row) => {
    groups[row.group][row.field] = null;
    return groups;
  },
  { profitability: {}, liquidity: {}, solvency: {}, people: {} } as Record<Group, Record<string, Value>>,
);

/**
 * Figures that may not be negative: those whose period schema rejects a negative value (`amount`,
 * `ratio`, `count`, `share`), read from the schema itself so the rule has one source.
 */
const NON_NEGATIVE = new Set(
  GROUP_NAMES.flatMap((group) =>
    Object.entries(financialPeriodSchema.entries[group].entries)
      .filter(([, schema]) => !v.safeParse(schema, -1).success)
      .map(([field]) => field),
  ),
);

/** The figures, by group and field, of `NON_NEGATIVE`. */
const NON_NEGATIVE_FIGURES = MAPPING.filter((row) => NON_NEGATIVE.has(row.field)).map(
  (row) => [row.group, row.field] as const,
);

/**
 * What the schema and §6.1's identities allow: a negative amount that may not be, a financial or
 * payable part above its total, an ebitda below ebit are left out (null) and counted. The identities
 * between totals hold by construction (each is computed from the same rubrics).
 */
function keepIdentities(f: Figures): { figures: Figures; dropped: number } {
  const held = { figures: f, dropped: 0 };
  for (const [group, field] of NON_NEGATIVE_FIGURES) {
    const value = (f[group] as Record<string, Value>)[field]!;
    if (value !== null && value < 0) drop(held, group, field as never);
  }
  const s = f.solvency;
  for (const term of ['longTermDebt', 'shortTermDebt'] as const) {
    const financial = s[`${term}Financial`];
    const payable = s[`${term}AccountsPayable`];
    const total = s[term];
    const known = Math.round((financial ?? 0) * 100) + Math.round((payable ?? 0) * 100);
    if (total !== null && known > Math.round(total * 100)) {
      drop(held, 'solvency', `${term}Financial`);
      drop(held, 'solvency', `${term}AccountsPayable`);
    }
  }
  const p = f.profitability;
  if (p.ebitda !== null && p.ebit !== null && p.ebitda < p.ebit) drop(held, 'profitability', 'ebitda');
  return held;
}

/** Leaves a figure out (null), counted when it was there. */
function drop<G extends Group>(
  held: { figures: Figures; dropped: number },
  group: G,
  field: keyof Figures[G],
) {
  if (held.figures[group][field] !== null) held.dropped++;
  (held.figures[group][field] as Value) = null;
}

/** The mapping as a Markdown table: what docs/financials.md shows between its markers. */
export function mappingTableMarkdown(): string {
  const cell = (m: SourceMapping<never>) =>
    `${m.source === '—' ? '—' : `\`${m.source}\``} | ${m.confidence} | ${m.note ?? ''}`;
  const lines = [
    '| Field | Belgium (CBSO rubrics) | sure | how / why null | France (ratios column) | sure | how / why null |',
    '|---|---|---|---|---|---|---|',
    ...PERIOD_FIELDS.map(
      (f) => `| \`${f.field}\` | ${f.cbso} | ${f.confidence} | | ${f.inpi} | ${f.confidence} | |`,
    ),
    ...MAPPING.map(
      (row) =>
        `| \`${row.group}.${row.field}\` | ${cell(row.cbso as SourceMapping<never>)} | ${cell(row.inpi as SourceMapping<never>)} |`,
    ),
  ];
  return lines.join('\n');
}

/** The period's other fields: where each comes from (the code: lib/filings/cbso.ts, inpi-ratios.ts, apply.ts). */
export const PERIOD_FIELDS: ReadonlyArray<{
  field: string;
  cbso: string;
  inpi: string;
  confidence: Confidence;
}> = [
  {
    field: 'startDate',
    cbso: '`ExerciseDates.startDate` (or `StartDate`)',
    inpi: 'the day after the company’s previous `endDate`, else a year before `endDate` plus a day',
    confidence: 'contract',
  },
  {
    field: 'endDate',
    cbso: '`ExerciseDates.endDate` (or `EndDate`)',
    inpi: '`date_cloture_exercice`',
    confidence: 'contract',
  },
  {
    field: 'dateReceived',
    cbso: '`DepositDate`',
    inpi: 'the as-of date of the import that first brought these figures',
    confidence: 'contract',
  },
  {
    field: 'healthIndicator',
    cbso: 'Altman Z′′ of the period’s figures, banded 0..10 (below); null when one is missing',
    inpi: 'the ratios scorecard (below); null when a column it reads is empty',
    confidence: 'contract',
  },
  { field: 'jointCommitteeCodes', cbso: '`[]`', inpi: '`[]`', confidence: 'contract' },
];
