/** Legal entity schemas (contract §6.4): the entity as answers show it, and the company's list of them. */
import * as v from 'valibot';
import { paginationQuery, paginationSchema } from '../http/schemas';
import { COUNTRIES } from '../companies/identifiers';
import { companyPathParams, identifierSchema } from '../companies/schemas';

export const legalEntitySchema = v.object({
  legalEntityId: v.string(),
  countryCode: v.picklist(COUNTRIES),
  name: v.string(),
  isPrimary: v.boolean(),
});
export type LegalEntity = v.InferOutput<typeof legalEntitySchema>;

export const companyLegalEntitiesSchema = v.object({
  identifier: identifierSchema,
  data: v.array(legalEntitySchema),
  pagination: paginationSchema,
});

export const getCompanyLegalEntitiesRequest = {
  params: companyPathParams,
  query: v.object(paginationQuery),
};
