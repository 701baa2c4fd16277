/** (ext) The search request and answer (contract §6.5). */
import * as v from 'valibot';
import { integerQuery } from '../http/schemas';
import { identifierSchema } from '../companies/schemas';

export const SEARCH_LIMIT = { min: 1, max: 100, default: 10 } as const;
export const QUERY_LENGTH = { min: 2, max: 100 } as const;

export const searchCompaniesRequest = {
  query: v.object(
    {
      q: v.pipe(
        v.string('is required'),
        v.transform((q) => q.trim()),
        v.minLength(
          QUERY_LENGTH.min,
          `must be ${QUERY_LENGTH.min} to ${QUERY_LENGTH.max} characters after trimming`,
        ),
        v.maxLength(
          QUERY_LENGTH.max,
          `must be ${QUERY_LENGTH.min} to ${QUERY_LENGTH.max} characters after trimming`,
        ),
      ),
      countryCode: v.optional(
        v.pipe(
          v.string('must be BE, NL or FR'),
          v.transform((code) => code.toUpperCase()),
          v.picklist(['BE', 'NL', 'FR'], 'must be BE, NL or FR'),
        ),
      ),
      limit: integerQuery(SEARCH_LIMIT.min, SEARCH_LIMIT.max, SEARCH_LIMIT.default),
    },
    (issue) => (issue.path ? 'is required' : 'must be an object'),
  ),
};

export const searchAnswerSchema = v.array(identifierSchema);
