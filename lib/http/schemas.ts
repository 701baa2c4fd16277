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

const isJsonObject = (input: unknown) => typeof input === 'object' && input !== null && !Array.isArray(input);

/**
 * A JSON object with these entries: arrays and other values are not objects, a missing required
 * entry "is required", unknown keys are dropped (never echoed).
 */
export function jsonObject<const E extends v.ObjectEntries>(entries: E, what = 'a JSON object') {
  return v.pipe(
    v.custom<Record<string, unknown>>(isJsonObject, `must be ${what}`),
    v.object(entries, (issue) => (issue.path ? 'is required' : `must be ${what}`)),
  );
}

/**
 * A JSON object kept exactly as sent (key order, values, unknown keys: an entry echoed back), whose
 * named properties are each checked by their schema when present, in the order they were sent, so
 * the details of a 400 come in that order too. infra/openapi/schema.ts documents it as the loose
 * object of these properties, each optional: the very schemas that check them.
 */
export function objectAsSent<const P extends Record<string, v.GenericSchema>>(
  properties: P,
  what = 'an object',
) {
  return v.pipe(
    v.custom<Record<string, unknown>>(isJsonObject, `must be ${what}`),
    propertiesAsSent(properties),
  );
}

/** The check of objectAsSent(); its `requirement` is the object it documents. */
export interface PropertiesAsSentAction extends v.BaseValidation<
  Record<string, unknown>,
  Record<string, unknown>,
  v.BaseIssue<unknown>
> {
  readonly type: 'properties_as_sent';
  readonly reference: typeof propertiesAsSent;
  readonly requirement: v.LooseObjectSchema<v.ObjectEntries, undefined>;
}

function propertiesAsSent(properties: Record<string, v.GenericSchema>): PropertiesAsSentAction {
  const optional = Object.fromEntries(Object.entries(properties).map(([key, s]) => [key, v.optional(s)]));
  return {
    kind: 'validation',
    type: 'properties_as_sent',
    reference: propertiesAsSent,
    async: false,
    expects: null,
    requirement: v.looseObject(optional),
    '~run'(dataset, config) {
      if (!dataset.typed) return dataset;
      const entry = dataset.value;
      for (const key of Object.keys(entry)) {
        if (!Object.hasOwn(properties, key)) continue;
        const value = entry[key];
        const checked = properties[key]!['~run']({ value }, config);
        if (!checked.issues) continue;
        const step: v.ObjectPathItem = { type: 'object', origin: 'value', input: entry, key, value };
        const issues = checked.issues.map((issue): v.BaseIssue<unknown> => ({
          ...issue,
          path: [step, ...(issue.path ?? [])],
        }));
        if (dataset.issues) dataset.issues.push(...issues);
        else (dataset as { issues?: v.BaseIssue<unknown>[] }).issues = issues;
      }
      return dataset;
    },
  };
}

/**
 * How many characters a text has, as the contract's limits ("at most 200 characters"), JSON (RFC 8259)
 * and JSON Schema's `maxLength` count them: Unicode code points. `length` counts UTF-16 units, two for
 * an emoji or any other character outside the Basic Multilingual Plane.
 */
export function characterCount(text: string): number {
  // A string's iterator yields code points.
  return Array.from(text).length;
}

/** A check that a text has at most `max` characters (code points, see characterCount). */
export const atMostCharacters = (max: number, message: string) =>
  v.check((text: string) => characterCount(text) <= max, message);

/**
 * A string of at most `max` characters, documented as JSON Schema's `maxLength` (which counts
 * characters the same way; valibot's maxLength would count UTF-16 units).
 */
export function textOfAtMost(max: number, message: string, notText = 'must be a string') {
  return v.pipe(
    v.string(notText),
    documentedAs<string>(v.pipe(v.string(), v.maxLength(max))),
    atMostCharacters(max, message),
  );
}

/** An integer's bounds and its default when absent (`PAGE_LIMIT`). */
export interface IntegerBounds {
  readonly min: number;
  readonly max: number;
  readonly default: number;
}

/**
 * An integer query parameter within `bounds` (query values arrive as strings): "1.5", "abc" and ""
 * are rejected. Absent, it is `fallback` (the bounds' default unless given).
 */
export function integerQuery({ min, max, default: byDefault }: IntegerBounds, fallback = byDefault) {
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

/** What anyCase() does to the text (infra/openapi/schema.ts knows it by this function). */
export const upperCase = (text: string) => text.toUpperCase();

/**
 * One of `options`, sent in any letter case (`be` is `BE`): upper-cased, then checked. Documented as
 * the options, with a description saying that any letter case will do.
 */
export function anyCase<const O extends readonly string[]>(options: O, message: string, notText = message) {
  return v.pipe(
    v.string(notText),
    v.description(`${options.join(', ')}, in any letter case`),
    v.transform(upperCase),
    v.picklist(options, message),
  );
}

/**
 * An integer body field within `bounds`: a JSON number with no fraction; "4" (a string) is the wrong
 * type. Absent, it is the bounds' default.
 */
export function integerField({ min, max, default: fallback }: IntegerBounds) {
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
export const PAGE_LIMIT = { min: 1, max: 500, default: 4 } as const;
export const PAGE_OFFSET = { min: 0, max: 10000, default: 0 } as const;
export const PAGE = { limit: PAGE_LIMIT, offset: PAGE_OFFSET } as const;

export const limitQuery = /* @__PURE__ */ integerQuery(PAGE_LIMIT);
export const offsetQuery = /* @__PURE__ */ integerQuery(PAGE_OFFSET);
export const paginationQuery = { limit: limitQuery, offset: offsetQuery };

export const limitField = /* @__PURE__ */ integerField(PAGE_LIMIT);
export const offsetField = /* @__PURE__ */ integerField(PAGE_OFFSET);
export const paginationBody = { limit: limitField, offset: offsetField };

export const paginationSchema = /* @__PURE__ */ v.object({
  limit: /* @__PURE__ */ v.number(),
  offset: /* @__PURE__ */ v.number(),
  total: /* @__PURE__ */ v.number(),
});
export type Pagination = v.InferOutput<typeof paginationSchema>;

export const errorSchema = /* @__PURE__ */ v.object({
  message: /* @__PURE__ */ v.string(),
  code: /* @__PURE__ */ v.string(),
  requestId: /* @__PURE__ */ v.string(),
  details: /* @__PURE__ */ v.optional(
    /* @__PURE__ */ v.array(
      /* @__PURE__ */ v.object({ path: /* @__PURE__ */ v.string(), message: /* @__PURE__ */ v.string() }),
    ),
  ),
});

/** A calendar date, `YYYY-MM-DD` (contract §1), that exists: 2023-02-30 does not. */
export const isoDate = /* @__PURE__ */ v.pipe(
  /* @__PURE__ */ v.string('must be a date (YYYY-MM-DD)'),
  /* @__PURE__ */ v.isoDate('must be a date (YYYY-MM-DD)'),
  /* @__PURE__ */ v.check((date) => isCalendarDate(date), 'must be a date that exists'),
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
