/** (ext) The search request and answer (contract §6.5). */
import * as v from 'valibot';
import { anyCase, integerQuery } from '../http/schemas';
import { COUNTRIES } from '../companies/identifiers';
import { identifierSchema } from '../companies/schemas';

export const SEARCH_LIMIT = { min: 1, max: 100, default: 10 } as const;
export const QUERY_LENGTH = { min: 2, max: 100 } as const;
/**
 * Text whose trimmed length is QUERY_LENGTH: white space (what `trim` removes, which is `\s`), then a
 * non-space, up to 98 of anything, a non-space, white space. Lengths count UTF-16 units, as `length` does.
 */
const QUERY_TEXT = new RegExp(`^\\s*\\S[\\s\\S]{${QUERY_LENGTH.min - 2},${QUERY_LENGTH.max - 2}}\\S\\s*$`);

export const searchCompaniesRequest = {
  query: v.object(
    {
      q: v.pipe(
        v.string('is required'),
        v.description(
          `A company name (a prefix of each word is enough), company number or VAT number: ` +
            `${QUERY_LENGTH.min} to ${QUERY_LENGTH.max} characters after trimming`,
        ),
        // Checked as sent, so the document states the rule (white space around is not counted).
        v.regex(QUERY_TEXT, `must be ${QUERY_LENGTH.min} to ${QUERY_LENGTH.max} characters after trimming`),
        v.transform((q) => q.trim()),
      ),
      countryCode: v.optional(anyCase(COUNTRIES, 'must be BE, NL or FR')),
      limit: integerQuery(SEARCH_LIMIT.min, SEARCH_LIMIT.max, SEARCH_LIMIT.default),
    },
    (issue) => (issue.path ? 'is required' : 'must be an object'),
  ),
};

export const searchAnswerSchema = v.array(identifierSchema);
