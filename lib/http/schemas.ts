/**
 * Building blocks for request and response schemas. Every schema is a valibot schema: the same
 * definition validates requests, gives the TypeScript types and feeds the OpenAPI document.
 * Detail messages are the contract's ("must be ≤ 500"); the request-level summary is derived
 * from the schema itself (see lib/http/validation.ts).
 */
import * as v from 'valibot';

const INTEGER = 'must be an integer';
const atLeast = (min: number) => `must be ≥ ${min}`;
const atMost = (max: number) => `must be ≤ ${max}`;

/**
 * A JSON object with these entries: arrays and other values are not objects, a missing required
 * entry "is required", unknown keys are dropped (never echoed).
 */
export function jsonObject<const E extends v.ObjectEntries>(entries: E, what = 'a JSON object') {
  return v.pipe(
    v.custom<Record<string, unknown>>(
      (input) => typeof input === 'object' && input !== null && !Array.isArray(input),
      `must be ${what}`,
    ),
    v.object(entries, (issue) => (issue.path ? 'is required' : `must be ${what}`)),
  );
}

/** An integer query parameter (query values arrive as strings): "1.5", "abc" and "" are rejected. */
export function integerQuery(min: number, max: number, fallback: number) {
  return v.optional(
    v.pipe(
      v.string(INTEGER),
      v.regex(/^-?\d{1,9}$/, INTEGER),
      v.transform(Number),
      v.integer(INTEGER),
      v.minValue(min, atLeast(min)),
      v.maxValue(max, atMost(max)),
    ),
    String(fallback),
  );
}

/** An integer body field: a JSON number with no fraction; "4" (a string) is the wrong type. */
export function integerField(min: number, max: number, fallback: number) {
  return v.optional(
    v.pipe(
      v.number(INTEGER),
      v.integer(INTEGER),
      v.minValue(min, atLeast(min)),
      v.maxValue(max, atMost(max)),
    ),
    fallback,
  );
}

/** Contract §1.1: limit 1..500 (default 4), offset 0..10000 (default 0). */
export const PAGE = {
  limit: { min: 1, max: 500, default: 4 },
  offset: { min: 0, max: 10000, default: 0 },
} as const;

export const paginationQuery = {
  limit: integerQuery(PAGE.limit.min, PAGE.limit.max, PAGE.limit.default),
  offset: integerQuery(PAGE.offset.min, PAGE.offset.max, PAGE.offset.default),
};

export const paginationBody = {
  limit: integerField(PAGE.limit.min, PAGE.limit.max, PAGE.limit.default),
  offset: integerField(PAGE.offset.min, PAGE.offset.max, PAGE.offset.default),
};

export const paginationSchema = v.object({
  limit: v.number(),
  offset: v.number(),
  total: v.number(),
});
export type Pagination = v.InferOutput<typeof paginationSchema>;

export const errorSchema = v.object({
  message: v.string(),
  code: v.string(),
  requestId: v.string(),
  details: v.optional(v.array(v.object({ path: v.string(), message: v.string() }))),
});

/** A calendar date, `YYYY-MM-DD` (contract §1), that exists: 2023-02-30 does not. */
export const isoDate = v.pipe(
  v.string('must be a date (YYYY-MM-DD)'),
  v.isoDate('must be a date (YYYY-MM-DD)'),
  v.check((date) => isCalendarDate(date), 'must be a date that exists'),
);

export function isCalendarDate(date: string): boolean {
  const time = Date.parse(`${date}T00:00:00Z`);
  return !Number.isNaN(time) && new Date(time).toISOString().slice(0, 10) === date;
}

/**
 * For a value checked by hand (a `custom` check and a `rawCheck`, to keep an entry exactly as sent):
 * the object schema the OpenAPI document shows for it, with every property the check reads named.
 * Validation never runs it; infra/openapi/schema.ts documents it in place of the hand check.
 */
export function documentedAs<T>(schema: v.GenericSchema) {
  return v.metadata<T, { readonly documentedAs: v.GenericSchema }>({ documentedAs: schema });
}
