/**
 * Legal entity ids (key pattern in lib/storage/keys.ts): one item per id naming its entity's company,
 * so the updates endpoints find an entity by its id in one GetItem. Claiming an id is a conditional
 * put: it succeeds when the id is free or already this entity's, and fails on a collision.
 */
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import type { CompanyRef } from '../companies/identifiers';
import { getItem } from '../storage/batch';
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
