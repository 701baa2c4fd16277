/** Assigning legal entity ids at import (contract §6.4): the first candidate id the entity can claim. */
import type { CompanyRef } from '../companies/identifiers';
import { legalEntityIdCandidate, stageIdScheme, type LegalEntityIdScheme } from './ids';
import { claimLegalEntityId } from './store';

/** Far more than the full id space ever needs; a shrunken test space may run out. */
const MAX_ATTEMPTS = 64;

/** The entity's id: its own already (the same claim again), or the first free candidate. Idempotent. */
export async function assignLegalEntityId(
  company: CompanyRef,
  scheme: LegalEntityIdScheme = stageIdScheme(),
): Promise<string> {
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const candidate = legalEntityIdCandidate(company, attempt, scheme);
    if (await claimLegalEntityId(candidate, company)) return candidate;
  }
  throw new Error(
    `No free legal entity id for ${company.country} ${company.companyNumber} after ${MAX_ATTEMPTS} attempts`,
  );
}
