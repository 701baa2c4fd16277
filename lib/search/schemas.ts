/** (ext) The search request and answer (contract §6.5). */
import * as v from 'valibot';
import { anyCase, documentedAs, integerQuery } from '../http/schemas';
import { COUNTRIES } from '../companies/identifiers';
import { identifierSchema } from '../companies/schemas';

export const SEARCH_LIMIT = { min: 1, max: 100, default: 10 } as const;
export const QUERY_LENGTH = { min: 2, max: 100 } as const;
/**
 * Text whose trimmed length is QUERY_LENGTH: white space (what `trim` removes, which is `\s`), then a
 * non-space, up to 98 of anything, a non-space, white space. Lengths count characters (code points):
 * the check reads the pattern with the `u` flag, as JSON Schema reads the documented `pattern`, so an
 * emoji is one character, not two UTF-16 units.
 */
const QUERY_TEXT = `^\\s*\\S[\\s\\S]{${QUERY_LENGTH.min - 2},${QUERY_LENGTH.max - 2}}\\S\\s*$`;
const QUERY_MESSAGE = `must be ${QUERY_LENGTH.min} to ${QUERY_LENGTH.max} characters after trimming`;
const queryText = /* @__PURE__ */ new RegExp(QUERY_TEXT, 'u');
const QUERY_DESCRIPTION =
  `A company name (a prefix of each word is enough), company number or VAT number: ` +
  `${QUERY_LENGTH.min} to ${QUERY_LENGTH.max} characters after trimming`;

export const searchCompaniesRequest = {
  query: /* @__PURE__ */ v.object(
    {
      q: /* @__PURE__ */ v.pipe(
        /* @__PURE__ */ v.string('is required'),
        // Checked as sent, so the document states the rule (white space around is not counted).
        /* @__PURE__ */ documentedAs<string>(
          /* @__PURE__ */ v.pipe(
            /* @__PURE__ */ v.string(),
            /* @__PURE__ */ v.description(QUERY_DESCRIPTION),
            /* @__PURE__ */ v.regex(/* @__PURE__ */ new RegExp(QUERY_TEXT)),
          ),
        ),
        /* @__PURE__ */ v.check((q) => queryText.test(q), QUERY_MESSAGE),
        /* @__PURE__ */ v.transform((q) => q.trim()),
      ),
      countryCode: /* @__PURE__ */ v.optional(/* @__PURE__ */ anyCase(COUNTRIES, 'must be BE, NL or FR')),
      limit: /* @__PURE__ */ integerQuery(SEARCH_LIMIT),
    },
    (issue) => (issue.path ? 'is required' : 'must be an object'),
  ),
};

export const searchAnswerSchema = /* @__PURE__ */ v.array(identifierSchema);
