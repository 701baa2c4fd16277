/** (ext) The match request and answer (contract §6.5). */
import * as v from 'valibot';
import { jsonObject, objectAsSent, textOfAtMost } from '../http/schemas';
import { identifierSchema } from '../companies/schemas';
import { MATCH_PROPERTIES, USABLE_PROPERTIES } from './candidates';

const MAX_PROPERTY_LENGTH = 200;
const MAX_ENTRIES = 100;

/** Each known property, when present: a string of at most 200 characters (as a PUT entry's, §7.5). */
const property = textOfAtMost(MAX_PROPERTY_LENGTH, `must be at most ${MAX_PROPERTY_LENGTH} characters`);

/**
 * An entry is kept exactly as sent (its known properties are echoed in `parameters` in the order
 * sent). An entry with nothing usable is not a bad request here: its own item fails (§6.5).
 */
const entrySchema = v.pipe(
  objectAsSent(Object.fromEntries(MATCH_PROPERTIES.map((key) => [key, property]))),
  v.description(
    `What is known of one company: at least one of ${USABLE_PROPERTIES.join(', ')} to match on (else this ` +
      'entry fails its own item); `country` and `place` narrow. Other keys are ignored.',
  ),
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
