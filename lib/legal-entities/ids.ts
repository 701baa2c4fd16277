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
import { config } from '../config';

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

/** What the import says when it would assign ids on a deployed stage without that stage's secret. */
export class LegalEntitySecretMissingError extends Error {
  override readonly name = 'LegalEntitySecretMissingError';
  constructor() {
    super(
      "legal entity ids on a deployed stage are keyed by the stage's secret: set LEGAL_ENTITY_SECRET_ARN " +
        'to the stack output LegalEntitySecretArn',
    );
  }
}

let loaded: Promise<LegalEntityIdScheme> | undefined;
let scheme: LegalEntityIdScheme | undefined;

/**
 * Reads the stage's secret once per process (a Lambda's cold start, a CLI run) and keeps it: from
 * Secrets Manager when `LEGAL_ENTITY_SECRET_ARN` names the stack's secret, else as `stageIdScheme`
 * says. The import awaits it before its first batch, so a missing secret stops it before anything is
 * written, and no id is ever derived under the wrong key.
 */
export function loadStageIdScheme(): Promise<LegalEntityIdScheme> {
  loaded ??= (async () => {
    const arn = config.legalEntitySecretArn();
    if (!arn) return stageIdScheme();
    // Loaded only here: the SDK's Secrets Manager client is for the processes that assign ids.
    const { SecretsManagerClient, GetSecretValueCommand } = await import('@aws-sdk/client-secrets-manager');
    const client = new SecretsManagerClient({});
    try {
      const { SecretString } = await client.send(new GetSecretValueCommand({ SecretId: arn }));
      if (!SecretString) throw new LegalEntitySecretMissingError();
      return (scheme = { secret: SecretString, space: FULL_ID_SPACE });
    } finally {
      client.destroy();
    }
  })();
  // A failed read is not kept: the next call tries again.
  loaded.catch(() => (loaded = undefined));
  return loaded;
}

/**
 * The stage's id scheme: the secret `loadStageIdScheme` read; else `LEGAL_ENTITY_SECRET`; else, on a
 * DynamoDB endpoint of its own (the local stage, DynamoDB Local in tests), the local stage's named
 * constant. A deployed stage's table without its secret is refused rather than keyed by the constant.
 */
export function stageIdScheme(): LegalEntityIdScheme {
  if (scheme) return scheme;
  if (config.legalEntitySecretArn()) throw new LegalEntitySecretMissingError();
  const secret =
    config.legalEntitySecret() ?? (config.dynamodbEndpoint() ? LOCAL_LEGAL_ENTITY_SECRET : undefined);
  if (!secret) throw new LegalEntitySecretMissingError();
  return { secret, space: FULL_ID_SPACE };
}
