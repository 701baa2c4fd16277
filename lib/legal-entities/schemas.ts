/** Legal entity schemas (contract §6.4): the entity as answers show it, and the company's list of them. */
import * as v from 'valibot';
import { paginationQuery, paginationSchema } from '../http/schemas';
import { COUNTRIES } from '../companies/identifiers';
import { companyPathParams, identifierSchema } from '../companies/schemas';

export const legalEntitySchema = /* @__PURE__ */ v.object({
  legalEntityId: /* @__PURE__ */ v.string(),
  countryCode: /* @__PURE__ */ v.picklist(COUNTRIES),
  name: /* @__PURE__ */ v.string(),
  isPrimary: /* @__PURE__ */ v.boolean(),
});
export type LegalEntity = v.InferOutput<typeof legalEntitySchema>;

export const companyLegalEntitiesSchema = /* @__PURE__ */ v.object({
  identifier: identifierSchema,
  data: /* @__PURE__ */ v.array(legalEntitySchema),
  pagination: paginationSchema,
});

export const getCompanyLegalEntitiesRequest = {
  params: companyPathParams,
  query: /* @__PURE__ */ v.object(paginationQuery),
};
