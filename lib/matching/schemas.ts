/** (ext) The match request and answer (contract §6.5). */
import * as v from 'valibot';
import { jsonObject, objectAsSent, textOfAtMost } from '../http/schemas';
import { identifierSchema } from '../companies/schemas';
import { MATCH_PROPERTIES, USABLE_PROPERTIES } from './candidates';

const MAX_PROPERTY_LENGTH = 200;
const MAX_ENTRIES = 100;

/** Each known property, when present: a string of at most 200 characters (as a PUT entry's, §7.5). */
const PROPERTY_TOO_LONG = `must be at most ${MAX_PROPERTY_LENGTH} characters`;
const property = /* @__PURE__ */ textOfAtMost(MAX_PROPERTY_LENGTH, PROPERTY_TOO_LONG);

/**
 * An entry is kept exactly as sent (its known properties are echoed in `parameters` in the order
 * sent). An entry with nothing usable is not a bad request here: its own item fails (§6.5).
 */
const ENTRY_DESCRIPTION =
  `What is known of one company: at least one of ${/* @__PURE__ */ USABLE_PROPERTIES.join(', ')} to match on (else this ` +
  'entry fails its own item); `country` and `place` narrow. Other keys are ignored.';
const entrySchema = /* @__PURE__ */ v.pipe(
  /* @__PURE__ */ objectAsSent(
    /* @__PURE__ */ Object.fromEntries(/* @__PURE__ */ MATCH_PROPERTIES.map((key) => [key, property])),
  ),
  /* @__PURE__ */ v.description(ENTRY_DESCRIPTION),
);
const TOO_MANY_COMPANIES = `must contain at most ${MAX_ENTRIES} companies`;

export const matchCompaniesRequest = {
  body: /* @__PURE__ */ jsonObject({
    companies: /* @__PURE__ */ v.pipe(
      /* @__PURE__ */ v.array(entrySchema, 'must be an array of companies'),
      /* @__PURE__ */ v.minLength(1, 'must contain at least 1 company'),
      /* @__PURE__ */ v.maxLength(MAX_ENTRIES, TOO_MANY_COMPANIES),
    ),
  }),
};

export const matchItemSchema = /* @__PURE__ */ v.object({
  parameters: /* @__PURE__ */ v.record(/* @__PURE__ */ v.string(), /* @__PURE__ */ v.string()),
  data: /* @__PURE__ */ v.nullable(
    /* @__PURE__ */ v.array(
      /* @__PURE__ */ v.object({
        identifier: identifierSchema,
        confidence: /* @__PURE__ */ v.number(),
        matchedOn: /* @__PURE__ */ v.array(
          /* @__PURE__ */ v.picklist(['companyNumber', 'VAT', 'website', 'name', 'place']),
        ),
      }),
    ),
  ),
  message: /* @__PURE__ */ v.nullable(/* @__PURE__ */ v.string()),
});
export type MatchItem = v.InferOutput<typeof matchItemSchema>;
