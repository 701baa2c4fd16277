/** Assigning legal entity ids at import (contract §6.4): the first candidate id the entity can claim. */
import { companyKey, type CompanyRef } from '../companies/identifiers';
import { legalEntityIdCandidate, stageIdScheme, type LegalEntityIdScheme } from './ids';
import { claimLegalEntityId, claimLegalEntityIds, type LegalEntityClaim } from './store';

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
 * gives it: per round the entities' current candidates claimed in transactions of up to 100
 * conditional puts (lib/legal-entities/store.ts), with no read before: the claim's condition (free, or
 * already this entity's) is the check, so a batch of new companies costs one write each and no read.
 * A refused claim means another entity holds the id: that entity moves to its next candidate. Two
 * entities of the batch on one candidate: the first claims it, the other tries it next round (and is
 * refused, unless the first moved on). Keyed by `companyKey`.
 */
export async function assignLegalEntityIds(
  companies: CompanyRef[],
  scheme: LegalEntityIdScheme = stageIdScheme(),
): Promise<Map<string, string>> {
  const assigned = new Map<string, string>();
  let pending = companies.map((company) => ({ company, attempt: 0 }));
  // Each round either settles an entity, moves it on, or leaves it behind another of the batch.
  for (let round = 0; pending.length > 0; round++) {
    const stuck = pending.find((p) => p.attempt >= MAX_ATTEMPTS) ?? (round >= 4 * MAX_ATTEMPTS && pending[0]);
    if (stuck) {
      throw new Error(
        `No free legal entity id for ${stuck.company.country} ${stuck.company.companyNumber} after ${MAX_ATTEMPTS} attempts`,
      );
    }
    const claimed = new Set<string>();
    const claims: Array<LegalEntityClaim & { entity: (typeof pending)[number] }> = [];
    const next: typeof pending = [];
    for (const entity of pending) {
      const legalEntityId = legalEntityIdCandidate(entity.company, entity.attempt, scheme);
      if (claimed.has(legalEntityId)) next.push(entity);
      else {
        claimed.add(legalEntityId);
        claims.push({ legalEntityId, company: entity.company, entity });
      }
    }
    const refused = new Set(await claimLegalEntityIds(claims));
    for (const claim of claims) {
      if (refused.has(claim)) next.push({ ...claim.entity, attempt: claim.entity.attempt + 1 });
      else assigned.set(companyKey(claim.company), claim.legalEntityId);
    }
    pending = next;
  }
  return assigned;
}
