/**
 * The smart-list filter language (contract §7.6): which companies a SMART list holds. A filter is an
 * object with at least one criterion; all given criteria must hold, and any value of an array may.
 *
 * - `countries`: the company's country (any letter case in, upper case stored);
 * - `activities`: NACE codes (2 to 5 digits, dots allowed) matching any of the company's codes by prefix;
 * - `places`: the company's place, compared without case, accents or surrounding spaces;
 * - `employees`, `totalAssets`, `healthIndicator`: inclusive ranges `{min?, max?}` over the latest
 *   financial period; a company without that figure does not match the criterion.
 *
 * Pure: the schema (validation, types, OpenAPI) and the rule that evaluation (lib/lists/smart.ts)
 * applies, on a company's filter profile — the few facts the rule reads, kept small so that a
 * list's evaluation can read every company's profile.
 */
import * as v from 'valibot';
import { COUNTRIES, type Country } from '../companies/identifiers';
import { anyCase, atMostCharacters } from '../http/schemas';
import type { CompanyRecord } from '../companies/record';
import { folded } from '../order';

const MAX_VALUES = 100;
const MAX_TEXT = 200;

const values = <T extends v.GenericSchema>(item: T, what: string) =>
  v.pipe(
    v.array(item, `must be an array of ${what}`),
    v.minLength(1, `must contain at least 1 ${what.replace(/s$/, '')}`),
    v.maxLength(MAX_VALUES, `must contain at most ${MAX_VALUES} ${what}`),
  );

const NOT_A_COUNTRY = `must be one of ${/* @__PURE__ */ COUNTRIES.join(', ')}`;
const PLACE_TOO_LONG = `must be at most ${MAX_TEXT} characters`;

export const CRITERIA = [
  'countries',
  'activities',
  'places',
  'employees',
  'totalAssets',
  'healthIndicator',
] as const;

const NOT_A_CRITERION = `is not a criterion (${/* @__PURE__ */ CRITERIA.join(', ')})`;
const NO_CRITERION = `must have at least one criterion (${/* @__PURE__ */ CRITERIA.join(', ')})`;

/** The filters' schema, made by `filtersSchema` when a request first carries filters. */
function buildFiltersSchema() {
  const bound = v.pipe(v.number('must be a number'), v.finite('must be a finite number'));
  const range = v.pipe(
    v.strictObject({ min: v.optional(bound), max: v.optional(bound) }, (issue) =>
      issue.expected === 'never'
        ? 'is not a known bound (min, max)'
        : 'must be an object with min and/or max',
    ),
    v.check((r) => r.min !== undefined || r.max !== undefined, 'must have min, max or both'),
    v.check((r) => r.min === undefined || r.max === undefined || r.min <= r.max, 'min must be ≤ max'),
  );
  const country = anyCase(COUNTRIES, NOT_A_COUNTRY, 'must be a country code');
  /** A NACE code as the record takes them: 2 to 5 digits, dots allowed (`62.01`); stored as digits. */
  const activity = v.pipe(
    v.string('must be a NACE code'),
    v.regex(/^\d{2}(?:\.?\d){0,3}$/, 'must be a NACE code of 2 to 5 digits'),
    v.transform((code) => code.replace(/\./g, '')),
  );
  const place = v.pipe(
    v.string('must be a place name'),
    v.transform((p) => p.trim()),
    v.minLength(1, 'must not be empty'),
    atMostCharacters(MAX_TEXT, PLACE_TOO_LONG),
  );
  return v.pipe(
    v.custom<Record<string, unknown>>(
      (input) => typeof input === 'object' && input !== null && !Array.isArray(input),
      'must be an object of criteria',
    ),
    v.strictObject(
      {
        countries: v.optional(values(country, 'countries')),
        activities: v.optional(values(activity, 'NACE codes')),
        places: v.optional(values(place, 'places')),
        employees: v.optional(range),
        totalAssets: v.optional(range),
        healthIndicator: v.optional(range),
      },
      (issue) => (issue.expected === 'never' ? NOT_A_CRITERION : 'must be an object of criteria'),
    ),
    v.check((f) => Object.keys(f).length > 0, NO_CRITERION),
  );
}

let built: ReturnType<typeof buildFiltersSchema> | undefined;

/**
 * A list's filters (`filters` of a create or an update): a lazy schema, whose criteria are made when a
 * request first carries filters, not when a list function loads (a STATIC list's create never reads
 * them); made once, then reused. infra/openapi/schema.ts documents what it makes.
 */
export const filtersSchema = /* @__PURE__ */ v.lazy(() => (built ??= buildFiltersSchema()));
export type Filters = v.InferOutput<typeof filtersSchema>;
type Range = { min?: number | undefined; max?: number | undefined };

/** What the filters read of a company. */
export interface FilterProfile {
  country: Country;
  activities: string[];
  /** Normalised (`placeKey`). */
  place: string | null;
  employees: number | null;
  totalAssets: number | null;
  healthIndicator: number | null;
  /**
   * (ext) The company stopped (its `stoppedOn` is set): it matches no filter, so it never enters a
   * smart list as NEW and a NEW one leaves (§11.5.8); absent while it is active.
   */
  stopped?: true;
}

/** Places compare without case, accents or surrounding spaces: `Liège` = `liege`. */
export const placeKey = (place: string) => folded(place).trim();

export function filterProfileOf(record: CompanyRecord): FilterProfile {
  // Periods are stored newest first: the first is the latest.
  const latest = record.financials[0];
  return {
    country: record.country,
    activities: record.activities,
    place: record.place ? placeKey(record.place) : null,
    employees: latest?.people.employees ?? null,
    totalAssets: latest?.solvency.totalAssets ?? null,
    healthIndicator: latest?.healthIndicator ?? null,
    ...(record.stoppedOn ? { stopped: true as const } : {}),
  };
}

const inRange = (value: number | null, r: Range | undefined) =>
  r === undefined ||
  (value !== null && (r.min === undefined || value >= r.min) && (r.max === undefined || value <= r.max));

/** The countries whose companies a filter can match (every country without the criterion). */
export const countriesOf = (filters: Filters): readonly Country[] => filters.countries ?? COUNTRIES;

/** Whether every given criterion holds for the company (contract §7.6). */
export function matchesFilters(filters: Filters, company: FilterProfile): boolean {
  if (company.stopped) return false;
  if (filters.countries && !filters.countries.includes(company.country)) return false;
  if (
    filters.activities &&
    !filters.activities.some((code) => company.activities.some((a) => a.startsWith(code)))
  )
    return false;
  if (
    filters.places &&
    (company.place === null || !filters.places.some((p) => placeKey(p) === company.place))
  )
    return false;
  return (
    inRange(company.employees, filters.employees) &&
    inRange(company.totalAssets, filters.totalAssets) &&
    inRange(company.healthIndicator, filters.healthIndicator)
  );
}

/**
 * Where a filter can match, coarsely: the countries (or every one) times the NACE divisions of its
 * activities (or every one, `*`). A company can match only the filters filed under its country and
 * one of its divisions, or under `*`: the import looks up the smart lists a changed company could
 * touch by these keys instead of evaluating every list.
 */
export function filterBuckets(filters: Filters): string[] {
  const countries = filters.countries ?? ['*'];
  const divisions = filters.activities ? [...new Set(filters.activities.map((a) => a.slice(0, 2)))] : ['*'];
  return countries.flatMap((c) => divisions.map((d) => `${c}#${d}`));
}

/** The buckets a company's filters may be filed under (see `filterBuckets`). */
export function companyBuckets(company: Pick<FilterProfile, 'country' | 'activities'>): string[] {
  const divisions = ['*', ...new Set(company.activities.map((a) => a.slice(0, 2)))];
  return [company.country, '*'].flatMap((c) => divisions.map((d) => `${c}#${d}`));
}

/** The profile as stored (one short JSON array; the key names the company). */
/** A stopped company's profile has a sixth element, 1; an active one's has five. */
export const packProfile = (p: FilterProfile) =>
  JSON.stringify([
    p.activities,
    p.place,
    p.employees,
    p.totalAssets,
    p.healthIndicator,
    ...(p.stopped ? [1] : []),
  ]);

/**
 * What a packed profile's text must contain to match the filter's activities and places: per
 * criterion, pieces of which it contains at least one (a criterion absent: none). An activity `47`
 * matches only a profile whose codes hold one starting `"47` (each code is a JSON string), a place
 * `paris` only one holding `"paris"`; a place whose key starts with digits may be taken for a code the
 * other way round, so a profile that holds a piece still goes through `matchesFilters`, while one that
 * holds none never matches. So a Query can drop, with a FilterExpression, the entries that cannot
 * match before they travel (sieve.ts, which checks as many criteria as an expression takes).
 */
export function packedPieces(filters: Filters): PackedPieces {
  const pieces: PackedPieces = {};
  if (filters.activities) pieces.activities = [...new Set(filters.activities)].map((code) => `"${code}`);
  if (filters.places)
    pieces.places = [...new Set(filters.places.map((place) => JSON.stringify(placeKey(place))))];
  return pieces;
}

/** Per criterion checked, the pieces of which a matching packed profile holds one. */
export type PackedPieces = { activities?: string[]; places?: string[] };

export function unpackProfile(country: Country, packed: string): FilterProfile {
  const [activities, place, employees, totalAssets, healthIndicator, stopped] = JSON.parse(packed) as [
    string[],
    string | null,
    number | null,
    number | null,
    number | null,
    1?,
  ];
  return {
    country,
    activities,
    place,
    employees,
    totalAssets,
    healthIndicator,
    ...(stopped ? { stopped: true as const } : {}),
  };
}
