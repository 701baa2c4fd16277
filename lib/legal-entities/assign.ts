/** Assigning legal entity ids at import (contract §6.4): the first candidate id the entity can claim. */
import { companyKey, type CompanyRef } from '../companies/identifiers';
import { legalEntityIdCandidate, stageIdScheme, type LegalEntityIdScheme } from './ids';
import {
  claimLegalEntityId,
  claimLegalEntityIds,
  getLegalEntityOwners,
  type LegalEntityClaim,
} from './store';

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

/**
 * The ids of many entities at once (an import batch's new companies), each as `assignLegalEntityId`
 * gives it: per round one BatchGetItem of every entity's current candidate, then the free ones claimed
 * in transactions of up to 100 conditional puts (lib/legal-entities/store.ts). An id already the
 * entity's costs no write; a taken one moves the entity to its next candidate; two entities of the
 * batch on one free id: the first claims it, the other reads it again next round. Keyed by `companyKey`.
 */
export async function assignLegalEntityIds(
  companies: CompanyRef[],
  scheme: LegalEntityIdScheme = stageIdScheme(),
): Promise<Map<string, string>> {
  const assigned = new Map<string, string>();
  let pending = companies.map((company) => ({ company, attempt: 0 }));
  // Each round either settles an entity, moves it on, or leaves it to a claim that failed meanwhile.
  for (let round = 0; pending.length > 0; round++) {
    const stuck = pending.find((p) => p.attempt >= MAX_ATTEMPTS) ?? (round >= 4 * MAX_ATTEMPTS && pending[0]);
    if (stuck) {
      throw new Error(
        `No free legal entity id for ${stuck.company.country} ${stuck.company.companyNumber} after ${MAX_ATTEMPTS} attempts`,
      );
    }
    const candidates = pending.map((p) => legalEntityIdCandidate(p.company, p.attempt, scheme));
    const owners = await getLegalEntityOwners(candidates);
    const claimed = new Set<string>();
    const claims: Array<LegalEntityClaim & { entity: (typeof pending)[number] }> = [];
    const next: typeof pending = [];
    pending.forEach((entity, i) => {
      const legalEntityId = candidates[i]!;
      const owner = owners.get(legalEntityId);
      if (owner && companyKey(owner) === companyKey(entity.company))
        assigned.set(companyKey(entity.company), legalEntityId);
      else if (owner) next.push({ ...entity, attempt: entity.attempt + 1 });
      else if (claimed.has(legalEntityId)) next.push(entity);
      else {
        claimed.add(legalEntityId);
        claims.push({ legalEntityId, company: entity.company, entity });
      }
    });
    const refused = new Set(await claimLegalEntityIds(claims));
    for (const claim of claims) {
      if (refused.has(claim)) next.push(claim.entity);
      else assigned.set(companyKey(claim.company), claim.legalEntityId);
    }
    pending = next;
  }
  return assigned;
}
