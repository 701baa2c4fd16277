/**
 * Legal entity ids (contract §6.4): 10 to 12 digits (here always 12), opaque and not sequential — a
 * keyed hash (HMAC-SHA256) of the entity's `country#companyNumber` under the stage's secret, so the
 * id cannot be derived from the registry number without the secret. A collision with another entity
 * is detected when the id is claimed (a conditional write, lib/legal-entities/store.ts) and resolved
 * by hashing again with a counter (`country#companyNumber#1`, `#2`, …): deterministic, and stable,
 * since an entity keeps the first id it could claim and claimed ids are never given up.
 */
import { createHmac } from 'node:crypto';
import type { CompanyRef } from '../companies/identifiers';

/** The secret of the local stage: not a secret at all, and named so. A deployed stage has its own. */
export const LOCAL_LEGAL_ENTITY_SECRET = 'local-stage-not-secret';

export interface LegalEntityIdScheme {
  /** The stage's secret, the key of the hash. */
  secret: string;
  /** How many ids there are: ids run from 100000000000 to 100000000000 + space − 1. Tests shrink it to force collisions. */
  space: number;
}

const LOWEST_ID = 100_000_000_000n;
/** Every 12-digit number: 9 × 10¹¹ ids, so collisions are rare (about 1 in 180 among 10⁵ entities). */
export const FULL_ID_SPACE = 900_000_000_000;

/** The id an entity gets at its `attempt`-th try (0 first; the next after each collision). */
export function legalEntityIdCandidate(
  ref: CompanyRef,
  attempt: number,
  scheme: LegalEntityIdScheme,
): string {
  const message = `${ref.country}#${ref.companyNumber}${attempt === 0 ? '' : `#${attempt}`}`;
  const hash = createHmac('sha256', scheme.secret).update(message).digest();
  return String(LOWEST_ID + (hash.readBigUInt64BE(0) % BigInt(scheme.space)));
}

/** What the updates endpoints accept as an id (contract §8.1: anything else is simply not found). */
export function isLegalEntityId(text: string): boolean {
  return /^\d{10,12}$/.test(text);
}

/**
 * The stage's id scheme. The secret is `LEGAL_ENTITY_SECRET` when set (the import run against a
 * deployed stage passes that stage's secret), else the local stage's named constant.
 */
export function stageIdScheme(): LegalEntityIdScheme {
  return { secret: process.env['LEGAL_ENTITY_SECRET'] ?? LOCAL_LEGAL_ENTITY_SECRET, space: FULL_ID_SPACE };
}
