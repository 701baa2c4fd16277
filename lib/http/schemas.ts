/**
 * Building blocks for request and response schemas. Every schema is a valibot schema: the same
 * definition validates requests, gives the TypeScript types and feeds the OpenAPI document.
 * Detail messages are the contract's ("must be ≤ 500"); the request-level summary is derived
 * from the schema itself (see lib/http/validation.ts).
 */
import * as v from 'valibot';

export const COUNTRIES = ['BE', 'NL', 'FR'] as const;
export type Country = (typeof COUNTRIES)[number];

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

/** The path of a single-company endpoint; the number itself is checked by the identifier rules (§3). */
export const companyPathParams = v.object({
  countryCode: v.string(),
  companyNumber: v.string(),
});

/**
 * One requested company in a bulk call. The entry must be an object; its fields are judged per item
 * (contract §2.2: a bad country or number fails that item, not the request), so they are typed loosely here.
 */
export const bulkCompanyEntry = jsonObject(
  {
    countryCode: v.optional(v.unknown()),
    country: v.optional(v.unknown()),
    companyNumber: v.optional(v.unknown()),
  },
  'an object',
);

export const MAX_BULK_COMPANIES = 100;

export const bulkCompanies = v.pipe(
  v.array(bulkCompanyEntry, 'must be an array of companies'),
  v.minLength(1, 'must contain at least 1 company'),
  v.maxLength(MAX_BULK_COMPANIES, `must contain at most ${MAX_BULK_COMPANIES} companies`),
);

export const identifierSchema = v.object({
  country: v.picklist(COUNTRIES),
  companyNumber: v.string(),
  name: v.string(),
  place: v.nullable(v.string()),
});
export type Identifier = v.InferOutput<typeof identifierSchema>;

/** The identifier of a failed bulk item: what was asked, canonical where the number was valid. */
export const failedIdentifierSchema = v.object({
  country: v.unknown(),
  companyNumber: v.unknown(),
});

export const errorSchema = v.object({
  message: v.string(),
  code: v.string(),
  requestId: v.string(),
  details: v.optional(v.array(v.object({ path: v.string(), message: v.string() }))),
});
