/**
 * The sieve (contract §7.6: a filter that matches at most 10,000 companies is evaluated whole in the
 * request): a Query's FilterExpression that keeps, of the filter profile entries or profiles it reads,
 * only those that can match the filter's criteria the read is not keyed by, so that DynamoDB drops the
 * others before they travel. It checks
 *
 * - codes and places in the packed profile (`packedPieces`, filters.ts): `contains(p, '"47')`;
 * - ranges of employees, total assets and health on the entry's own numbers (`FIGURE_ATTRIBUTES`,
 *   written beside the packed profile, absent when the figure is unknown, so an entry without the
 *   figure is dropped as the filter drops its company): `e BETWEEN :min AND :max`, `h >= :min` — only
 *   on entries whose country's counts say they carry them (`figures` in `INDEX`,
 *   `FIGURE_ENTRIES_VERSION`), never on profile items, which do not.
 *
 * A criterion the read is keyed by (the codes of a code's entries, the places of a place's, the figure
 * of a range entry) is not checked again. DynamoDB takes at most 300 operators and functions and 4 KB
 * in an expression: the numbers go first (one operator each), then the criterion of fewer values, then
 * the other while they fit — of 100 codes and 100 places read from every profile or a range's entries,
 * only one is checked (200 `contains` and their 198 `OR` pass 300); the other is applied after the
 * read. Whatever the sieve leaves, every entry read still goes through `matchesFilters`.
 * Pure: the filters and the segment's kind in, the expression and its values out.
 */
import type { RangeFigure } from '../storage/filter-profile-keys';
import { packedPieces, type Filters } from './filters';

/** The figures a range criterion compares (filters.ts), in the order the sieve checks them. */
export const SIEVED_FIGURES = ['employees', 'totalAssets', 'healthIndicator'] as const;
export type SievedFigure = (typeof SIEVED_FIGURES)[number];

/** The attribute of a profile entry that holds each figure of the latest period (absent: unknown). */
export const FIGURE_ATTRIBUTES: Readonly<Record<SievedFigure, string>> = {
  employees: 'e',
  totalAssets: 'a',
  healthIndicator: 'h',
};

/**
 * The version of the entries' numbers the counts' `INDEX` item names (`figures`): a country recounted
 * before the entries carried them reads its ranges after the read only, until the next recount.
 */
export const FIGURE_ENTRIES_VERSION = 1;

/** What a segment's read is keyed by: the codes, the places, a figure's range entries, or nothing. */
export type KeyedBy = 'codes' | 'places' | RangeFigure;

/** What the sieve needs to know of a segment (store/profiles.ts `Segment`). */
export interface SieveTarget {
  /** Absent: every profile of a country (profile items, no numbers). */
  by?: KeyedBy;
  /** The entries carry their figures' numbers (`FIGURE_ENTRIES_VERSION`). */
  figures?: boolean;
}

/** DynamoDB's bounds on one expression: operators and functions, and its length in bytes. */
export const MAX_OPERATORS = 300;
export const MAX_EXPRESSION_BYTES = 4096;

export interface Sieve {
  expression: string;
  values: Record<string, string | number>;
}

/** A term of the expression, with the operators and functions it counts. */
interface Term {
  text: string;
  operators: number;
  values: Record<string, string | number>;
}

/** The filter's sieve where `target` is read; null when it checks nothing. */
export function sieveOf(filters: Filters, target: SieveTarget): Sieve | null {
  const terms: Term[] = target.figures ? figureTerms(filters, target.by) : [];
  const pieces = packedPieces(filters);
  const groups = [
    ...(target.by === 'codes' ? [] : [{ name: 'c', pieces: pieces.activities ?? [] }]),
    ...(target.by === 'places' ? [] : [{ name: 'p', pieces: pieces.places ?? [] }]),
  ]
    .filter((group) => group.pieces.length > 0)
    .sort((a, b) => a.pieces.length - b.pieces.length);
  for (const { name, pieces: values } of groups) {
    const term: Term = {
      text: `(${values.map((_, n) => `contains(p, :${name}${n})`).join(' OR ')})`,
      // Each `contains`, and the `OR`s between them.
      operators: 2 * values.length - 1,
      values: Object.fromEntries(values.map((piece, n) => [`:${name}${n}`, piece])),
    };
    if (fits([...terms, term])) terms.push(term);
  }
  return terms.length === 0 ? null : joined(terms);
}

/** Whether the sieve checks anything where `target` is read (the read is narrowed by it). */
export const sieves = (filters: Filters, target: SieveTarget): boolean => sieveOf(filters, target) !== null;

/** A number comparison per range of the filter, but the one the segment is keyed by. */
function figureTerms(filters: Filters, by: KeyedBy | undefined): Term[] {
  return SIEVED_FIGURES.flatMap((figure): Term[] => {
    const range = filters[figure];
    if (!range || figure === by) return [];
    const name = FIGURE_ATTRIBUTES[figure];
    const min = storable(range.min);
    const max = storable(range.max);
    if (min === undefined && max === undefined) return [];
    if (min !== undefined && max !== undefined)
      return [
        {
          text: `${name} BETWEEN :${name}0 AND :${name}1`,
          operators: 1,
          values: { [`:${name}0`]: min, [`:${name}1`]: max },
        },
      ];
    // A range has a `min`, a `max` or both (filters.ts).
    return min !== undefined
      ? [{ text: `${name} >= :${name}0`, operators: 1, values: { [`:${name}0`]: min } }]
      : [{ text: `${name} <= :${name}1`, operators: 1, values: { [`:${name}1`]: max! } }];
  });
}

/**
 * A bound DynamoDB can hold as a number (0, or a magnitude from 1E-130 to under 1E+126), else none: a
 * bound beyond that range is valid in a filter (`{"min": 1e-200}`) but refused in an expression, and
 * the sieve can leave it out, as `matchesFilters` applies every bound to what is read.
 */
function storable(bound: number | undefined): number | undefined {
  if (bound === undefined || bound === 0) return bound;
  const magnitude = Math.abs(bound);
  return magnitude >= 1e-130 && magnitude < 1e126 ? bound : undefined;
}

function joined(terms: Term[]): Sieve {
  return {
    expression: terms.map((term) => term.text).join(' AND '),
    values: Object.assign({}, ...terms.map((term) => term.values)) as Sieve['values'],
  };
}

/** Whether the terms joined by `AND` stay within DynamoDB's bounds on an expression. */
function fits(terms: Term[]): boolean {
  const operators = terms.reduce((sum, term) => sum + term.operators, 0) + terms.length - 1;
  return (
    operators <= MAX_OPERATORS && Buffer.byteLength(joined(terms).expression, 'utf8') <= MAX_EXPRESSION_BYTES
  );
}
