/**
 * Legal entities (contract §6.4): a company's own registered entity, then the registered entities it
 * controls — it holds more than 50 % of them, directly (exactly 50 % is not control). `isPrimary`:
 * no company in our data controls the entity. Read from the company's relationships item (one
 * GetItem), where the import keeps both sides of every holding and every entity's id.
 */
import { toIdentifier } from '../companies/company';
import { getRelationships, type StoredRelationships } from '../companies/holdings-store';
import { companyKey } from '../companies/identifiers';
import { byCodePoint } from '../order';
import { companyRefFromPath } from '../companies/requested-companies';
import { CompanyNotFound } from '../errors';
import { paginate, type PageRequest } from '../http/pagination';
import type { LegalEntity } from './schemas';

/** Control is holding more than half. */
export const CONTROL_THRESHOLD = 0.5;

export async function getCompanyLegalEntities(
  path: { countryCode: string; companyNumber: string },
  page: PageRequest,
) {
  const found = await getRelationships(companyRefFromPath(path));
  if (!found) throw new CompanyNotFound();
  return { identifier: toIdentifier(found.company), ...paginate(legalEntitiesOf(found), page) };
}

/** The company's own entity first, then those it controls by `name`, ties by `legalEntityId`. */
export function legalEntitiesOf(stored: StoredRelationships): LegalEntity[] {
  const controlled = stored.children
    .filter((held) => held.percentage > CONTROL_THRESHOLD)
    .map((held): LegalEntity => ({
      legalEntityId: held.legalEntityId,
      countryCode: held.country,
      name: held.name,
      isPrimary: false,
    }))
    .sort((a, b) => byCodePoint(a.name, b.name) || byCodePoint(a.legalEntityId, b.legalEntityId));
  return [ownLegalEntity(stored), ...controlled];
}

/** The company's own registered entity: primary unless another company of ours controls it. */
export function ownLegalEntity(stored: StoredRelationships): LegalEntity {
  return {
    legalEntityId: stored.legalEntityId,
    countryCode: stored.company.country,
    name: stored.company.name,
    isPrimary: !isControlled(stored),
  };
}

/** Some company in our data holds more than half of it. */
export function isControlled(stored: StoredRelationships): boolean {
  return stored.parents.some(
    (holder) =>
      holder.percentage > CONTROL_THRESHOLD &&
      holder.company !== null &&
      stored.registeredHolders.has(companyKey(holder.company)),
  );
}
