/** (ext) The match request and answer (contract §6.5). */
import * as v from 'valibot';
import { jsonObject } from '../http/schemas';
import { identifierSchema } from '../companies/schemas';
import { MATCH_PROPERTIES } from './candidates';

const MAX_PROPERTY_LENGTH = 200;
const MAX_ENTRIES = 100;

/**
 * An entry is kept exactly as sent (its key order is echoed in `parameters`), so it is checked by hand:
 * each known property, when present, a string of at most 200 characters (as a PUT entry's, §7.5). An
 * entry with nothing usable is not a bad request here: its own item fails (§6.5).
 */
const entrySchema = v.pipe(
  v.custom<Record<string, unknown>>(
    (input) => typeof input === 'object' && input !== null && !Array.isArray(input),
    'must be an object',
  ),
  v.rawCheck(({ dataset, addIssue }) => {
    if (!dataset.typed) return;
    const entry = dataset.value;
    for (const key of Object.keys(entry)) {
      if (!(MATCH_PROPERTIES as readonly string[]).includes(key)) continue;
      const value = entry[key];
      const problem =
        typeof value !== 'string'
          ? 'must be a string'
          : value.length > MAX_PROPERTY_LENGTH
            ? `must be at most ${MAX_PROPERTY_LENGTH} characters`
            : null;
      if (problem)
        addIssue({ message: problem, path: [{ type: 'object', origin: 'value', input: entry, key, value }] });
    }
  }),
);

export const matchCompaniesRequest = {
  body: jsonObject({
    companies: v.pipe(
      v.array(entrySchema, 'must be an array of companies'),
      v.minLength(1, 'must contain at least 1 company'),
      v.maxLength(MAX_ENTRIES, `must contain at most ${MAX_ENTRIES} companies`),
    ),
  }),
};

export const matchItemSchema = v.object({
  parameters: v.record(v.string(), v.string()),
  data: v.nullable(
    v.array(
      v.object({
        identifier: identifierSchema,
        confidence: v.number(),
        matchedOn: v.array(v.picklist(['companyNumber', 'VAT', 'website', 'name', 'place'])),
      }),
    ),
  ),
  message: v.nullable(v.string()),
});
export type MatchItem = v.InferOutput<typeof matchItemSchema>;
