/** Lookalike schemas (contract §6.3): requests and answers of the single and bulk endpoints. */
import * as v from 'valibot';
import {
  bulkCompanies,
  companyPathParams,
  failedIdentifierSchema,
  identifierSchema,
} from '../companies/schemas';
import { COUNTRIES } from '../companies/identifiers';
import { integerField, integerQuery, jsonObject, PAGE, paginationSchema } from '../http/schemas';

/** Contract §1.1: lookalikes take `limit` 1..100, default 10. */
export const LOOKALIKES_PAGE = { limit: { min: 1, max: 100, default: 10 }, offset: PAGE.offset } as const;

export const lookalikeSchema = v.object({
  companyId: v.object({ country: v.picklist(COUNTRIES), companyNumber: v.string() }),
  score: v.number(),
});

export const companyLookalikesSchema = v.object({
  identifier: identifierSchema,
  data: v.array(lookalikeSchema),
  pagination: paginationSchema,
});

export const bulkLookalikesItemSchema = v.union([
  v.object({ identifier: identifierSchema, data: v.array(lookalikeSchema), message: v.null() }),
  v.object({ identifier: failedIdentifierSchema, data: v.null(), message: v.string() }),
]);
export type BulkLookalikesItem = v.InferOutput<typeof bulkLookalikesItemSchema>;

const { limit, offset } = LOOKALIKES_PAGE;

export const getCompanyLookalikesRequest = {
  params: companyPathParams,
  query: v.object({
    limit: integerQuery(limit.min, limit.max, limit.default),
    offset: integerQuery(offset.min, offset.max, offset.default),
  }),
};

/** The bulk body is `{companies, limit}` (§6.3); any other field, `offset` included, is ignored (§1). */
export const getCompanyLookalikesBulkRequest = {
  body: jsonObject({ companies: bulkCompanies, limit: integerField(limit.min, limit.max, limit.default) }),
};
