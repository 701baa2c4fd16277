/** Lookalike schemas (contract §6.3): requests and answers of the single and bulk endpoints. */
import * as v from 'valibot';
import {
  bulkCompanies,
  companyPathParams,
  failedIdentifierSchema,
  identifierSchema,
} from '../companies/schemas';
import { COUNTRIES } from '../companies/identifiers';
import {
  integerField,
  integerQuery,
  jsonObject,
  offsetQuery,
  PAGE_OFFSET,
  paginationSchema,
} from '../http/schemas';

/** Contract §1.1: lookalikes take `limit` 1..100, default 10. */
const LOOKALIKES_LIMIT = { min: 1, max: 100, default: 10 } as const;
export const LOOKALIKES_PAGE = { limit: LOOKALIKES_LIMIT, offset: PAGE_OFFSET } as const;

export const lookalikeSchema = /* @__PURE__ */ v.object({
  companyId: /* @__PURE__ */ v.object({
    country: /* @__PURE__ */ v.picklist(COUNTRIES),
    companyNumber: /* @__PURE__ */ v.string(),
  }),
  score: /* @__PURE__ */ v.number(),
});

export const companyLookalikesSchema = /* @__PURE__ */ v.object({
  identifier: identifierSchema,
  data: /* @__PURE__ */ v.array(lookalikeSchema),
  pagination: paginationSchema,
});

export const bulkLookalikesItemSchema = /* @__PURE__ */ v.union([
  /* @__PURE__ */ v.object({
    identifier: identifierSchema,
    data: /* @__PURE__ */ v.array(lookalikeSchema),
    message: /* @__PURE__ */ v.null(),
  }),
  /* @__PURE__ */ v.object({
    identifier: failedIdentifierSchema,
    data: /* @__PURE__ */ v.null(),
    message: /* @__PURE__ */ v.string(),
  }),
]);
export type BulkLookalikesItem = v.InferOutput<typeof bulkLookalikesItemSchema>;

export const getCompanyLookalikesRequest = {
  params: companyPathParams,
  query: /* @__PURE__ */ v.object({
    limit: /* @__PURE__ */ integerQuery(LOOKALIKES_LIMIT),
    offset: offsetQuery,
  }),
};

/** The bulk body is `{companies, limit}` (§6.3); any other field, `offset` included, is ignored (§1). */
export const getCompanyLookalikesBulkRequest = {
  body: /* @__PURE__ */ jsonObject({
    companies: bulkCompanies,
    limit: /* @__PURE__ */ integerField(LOOKALIKES_LIMIT),
  }),
};
