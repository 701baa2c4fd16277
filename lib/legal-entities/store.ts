/**
 * Legal entity ids (key pattern in lib/storage/keys.ts): one item per id naming its entity's company,
 * so the updates endpoints find an entity by its id in one GetItem, and up to 100 in one BatchGetItem.
 * Claiming an id is a conditional
 * put: it succeeds when the id is free or already this entity's, and fails on a collision.
 */
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import type { CompanyRef } from '../companies/identifiers';
import { batchGet, getItem } from '../storage/batch';
import { conditionHeld, dynamodb, tableName } from '../storage/client';
import { keys } from '../storage/keys';

/** Claims `legalEntityId` for the company's entity; false when another entity holds it. Idempotent. */
export async function claimLegalEntityId(legalEntityId: string, company: CompanyRef): Promise<boolean> {
  return conditionHeld(() =>
    dynamodb().send(
      new PutCommand({
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
      }),
    ),
  );
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
