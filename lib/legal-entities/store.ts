/**
 * Legal entity ids (key pattern in lib/storage/keys.ts): one item per id naming its entity's company,
 * so the updates endpoints find an entity by its id in one GetItem, and up to 100 in one BatchGetItem.
 * Claiming an id is a conditional
 * put: it succeeds when the id is free or already this entity's, and fails on a collision.
 */
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import type { CompanyRef } from '../companies/identifiers';
import { backoff, batchGet, chunk, getItem } from '../storage/batch';
import { cancellationReasons, conditionHeld, dynamodb, tableName } from '../storage/client';
import { StorageUnavailableError } from '../storage/errors';
import * as keys from '../storage/keys';
import { sendTransaction } from '../storage/transactions';

export interface LegalEntityClaim {
  legalEntityId: string;
  company: CompanyRef;
}

/** The conditional put of a claim: it holds when the id is free or already this entity's. */
const claimPut = ({ legalEntityId, company }: LegalEntityClaim) => ({
  TableName: tableName(),
  Item: {
    ...keys.legalEntity(legalEntityId),
    entity: 'LegalEntity',
    legalEntityId,
    country: company.country,
    companyNumber: company.companyNumber,
  },
  ConditionExpression: 'attribute_not_exists(pk) OR (country = :country AND companyNumber = :number)',
  ExpressionAttributeValues: { ':country': company.country, ':number': company.companyNumber },
});

/** Claims `legalEntityId` for the company's entity; false when another entity holds it. Idempotent. */
export async function claimLegalEntityId(legalEntityId: string, company: CompanyRef): Promise<boolean> {
  return conditionHeld(() => dynamodb().send(new PutCommand(claimPut({ legalEntityId, company }))));
}

/** Transactions cancelled by concurrent writes (not by a taken id) are sent again this many times. */
const MAX_CONFLICT_ATTEMPTS = 10;

/**
 * Claims ids for many entities, up to 100 conditional puts to a TransactWriteItems request (the ids
 * must differ). Answers the claims whose id another entity holds: a transaction cancelled by them is
 * sent again without them. Idempotent, like `claimLegalEntityId`.
 */
export async function claimLegalEntityIds(claims: LegalEntityClaim[]): Promise<LegalEntityClaim[]> {
  const refused: LegalEntityClaim[] = [];
  await Promise.all(
    chunk(claims, 100).map(async (part) => {
      let pending = part;
      for (let attempt = 0; pending.length > 0; attempt++) {
        if (attempt === MAX_CONFLICT_ATTEMPTS) throw new StorageUnavailableError();
        if (attempt > 0) await backoff(attempt);
        try {
          await sendTransaction(pending.map((c) => ({ Put: claimPut(c) })));
          return;
        } catch (error) {
          const reasons = cancellationReasons(error);
          if (!reasons) throw error;
          const taken = pending.filter((_, i) => reasons[i] === 'ConditionalCheckFailed');
          refused.push(...taken);
          pending = pending.filter((_, i) => reasons[i] !== 'ConditionalCheckFailed');
        }
      }
    }),
  );
  return refused;
}

/** The company whose entity has this id, or null. One GetItem. */
export async function getLegalEntityCompany(legalEntityId: string): Promise<CompanyRef | null> {
  const Item = await getItem(tableName(), keys.legalEntity(legalEntityId), {
    projection: ['country', 'companyNumber'],
  });
  return Item
    ? { country: Item['country'] as CompanyRef['country'], companyNumber: Item['companyNumber'] as string }
    : null;
}

const ENTITY_PROJECTION = ['legalEntityId', 'country', 'companyNumber'];

/** The companies whose entities have these ids, keyed by id; unknown ids are absent. One BatchGetItem per 100. */
export async function getLegalEntityCompanies(legalEntityIds: string[]): Promise<Map<string, CompanyRef>> {
  const items = await batchGet(tableName(), legalEntityIds.map(keys.legalEntity), {
    projection: ENTITY_PROJECTION,
  });
  return new Map(
    items.map((item) => [
      item['legalEntityId'] as string,
      { country: item['country'] as CompanyRef['country'], companyNumber: item['companyNumber'] as string },
    ]),
  );
}
