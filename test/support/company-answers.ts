/**
 * What every company endpoint answers for one company, through the handlers (contract §6, §8): status
 * of each single GET, and each bulk call's item for it. `UNKNOWN` is what a number never imported gets
 * — what an erased company (§11.5.6) must get too.
 */
import { handler as getCompany } from '../../functions/get-company';
import { handler as getCompanyBulk } from '../../functions/get-company-bulk';
import { handler as getContacts } from '../../functions/get-company-contacts';
import { handler as getFinancials } from '../../functions/get-company-financials';
import { handler as getFinancialsBulk } from '../../functions/get-company-financials-bulk';
import { handler as getLegalEntities } from '../../functions/get-company-legal-entities';
import { handler as getLookalikes } from '../../functions/get-company-lookalikes';
import { handler as getLookalikesBulk } from '../../functions/get-company-lookalikes-bulk';
import { handler as getRelationships } from '../../functions/get-company-relationships';
import { handler as getRelationshipsBulk } from '../../functions/get-company-relationships-bulk';
import { handler as getUpdates } from '../../functions/get-legal-entity-updates';
import { handler as getUpdatesBulk } from '../../functions/get-legal-entity-updates-bulk';
import type { CompanyRef } from '../../lib/companies/identifiers';
import { call } from './events';

type Ref = CompanyRef;
const path_ = (ref: Ref) => ({ countryCode: ref.country, companyNumber: ref.companyNumber });
const entry = (ref: Ref) => ({ countryCode: ref.country, companyNumber: ref.companyNumber });

const status = async (handler: Parameters<typeof call>[0], ref: Ref, resource: string) =>
  (await call(handler, { resource, pathParameters: path_(ref) })).status;

/** Every company endpoint's answer for `ref`, as status and message (single) or item message (bulk). */
export async function answers(ref: Ref, legalEntityId: string) {
  const bulk = async (handler: Parameters<typeof call>[0], resource: string) => {
    const { status: code, body } = await call(handler, { resource, body: { companies: [entry(ref)] } });
    return [code, (body as Array<{ data: unknown; message: string | null }>)[0]];
  };
  const updates = await call(getUpdates, {
    resource: '/v1/legal-entities/{legalEntityId}/updates',
    pathParameters: { legalEntityId },
  });
  const updatesBulk = await call(getUpdatesBulk, {
    resource: '/v1/legal-entities/updates',
    body: { legalEntities: [{ legalEntityId }] },
  });
  return {
    details: await status(getCompany, ref, '/v1/companies/{countryCode}/{companyNumber}'),
    financials: await status(getFinancials, ref, '/v1/companies/{countryCode}/{companyNumber}/financials'),
    contacts: await status(getContacts, ref, '/v1/companies/{countryCode}/{companyNumber}/contacts'),
    lookalikes: await status(getLookalikes, ref, '/v1/companies/{countryCode}/{companyNumber}/lookalikes'),
    relationships: await status(
      getRelationships,
      ref,
      '/v1/companies/{countryCode}/{companyNumber}/relationships',
    ),
    legalEntities: await status(
      getLegalEntities,
      ref,
      '/v1/companies/{countryCode}/{companyNumber}/legal-entities',
    ),
    updates: updates.status,
    detailsBulk: await bulk(getCompanyBulk, '/v1/companies'),
    financialsBulk: await bulk(getFinancialsBulk, '/v1/companies/financials'),
    lookalikesBulk: await bulk(getLookalikesBulk, '/v1/companies/lookalikes'),
    relationshipsBulk: await bulk(getRelationshipsBulk, '/v1/companies/relationships'),
    updatesBulk: [
      updatesBulk.status,
      (updatesBulk.body as Array<{ data: unknown; message: string | null }>)[0]?.message,
    ],
  };
}

/** What an unknown company answers everywhere (the bulk items' `identifier` aside). */
export const UNKNOWN = {
  details: 404,
  financials: 404,
  contacts: 404,
  lookalikes: 404,
  relationships: 404,
  legalEntities: 404,
  updates: 404,
  detailsBulk: [200, expect.objectContaining({ data: null, message: 'Company not found' })],
  financialsBulk: [200, expect.objectContaining({ data: null, message: 'Company not found' })],
  lookalikesBulk: [200, expect.objectContaining({ data: null, message: 'Company not found' })],
  relationshipsBulk: [200, expect.objectContaining({ data: null, message: 'Company not found' })],
  updatesBulk: [200, 'Legal entity not found'],
};
