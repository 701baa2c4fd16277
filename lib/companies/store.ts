/**
 * The storage adapter: the only module that knows how domain objects sit in the table.
 *
 * | Entity     | pk                         | sk         | gsi1pk | gsi1sk                  | Holds                         |
 * |------------|----------------------------|------------|--------|-------------------------|-------------------------------|
 * | Company    | COMPANY#<country>#<number> | PROFILE    |        |                         | identifier, VAT, website      |
 * | Financials | COMPANY#<country>#<number> | FINANCIALS |        |                         | all periods, newest first     |
 * | Token      | TOKEN#<sha256 of token>    | TOKEN      | TOKENS | <createdAt>#<tokenId>   | account, user, scopes, expiry |
 *
 * Access patterns:
 * - a company's financials (single GET): one BatchGetItem of its PROFILE and FINANCIALS → 1 round trip;
 * - up to 100 companies' financials (bulk): 200 keys in two parallel BatchGetItems → 2 round trips,
 *   however many periods, because all of a company's periods live in one item;
 * - a token by its hash (authorizer): one GetItem; all tokens (CLI only): Query gsi1 on TOKENS.
 *
 * A company's periods are stored as one JSON string: they are only ever read whole, a string keeps
 * their key order (the wire contract fixes it) and parses far faster than a nested DynamoDB map.
 */
import { GetCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { tableDefinition } from '../../infra/table';
import type { Company, CompanyRecord } from '../companies/company';
import { companyKey, type CompanyRef } from '../companies/identifiers';
import type { FinancialPeriod } from '../schemas/financials';
import type { Scope } from '../tokens/scopes';
import { batchGet, batchPut } from './batch';
import { dynamodb, send, tableName } from './client';

const [GSI1] = tableDefinition.indexes;

const companyPk = (ref: CompanyRef) => `COMPANY#${ref.country}#${ref.companyNumber}`;
const tokenPk = (hash: string) => `TOKEN#${hash}`;

// ---- Companies -------------------------------------------------------------------------------

export interface StoredFinancials {
  company: Company;
  /** Newest first. */
  periods: FinancialPeriod[];
}

/** Profiles and financials of the given companies, keyed by `companyKey`; unknown companies are absent. */
export async function getCompaniesWithFinancials(refs: CompanyRef[]): Promise<Map<string, StoredFinancials>> {
  const keys = refs.flatMap((ref) => [
    { pk: companyPk(ref), sk: 'PROFILE' },
    { pk: companyPk(ref), sk: 'FINANCIALS' },
  ]);
  const items = await batchGet(tableName(), keys);
  const profiles = new Map<string, Company>();
  const periods = new Map<string, FinancialPeriod[]>();
  for (const item of items) {
    const pk = item['pk'] as string;
    if (item['sk'] === 'PROFILE') profiles.set(pk, toCompany(item));
    else periods.set(pk, JSON.parse(item['periods'] as string) as FinancialPeriod[]);
  }
  const found = new Map<string, StoredFinancials>();
  for (const ref of refs) {
    const pk = companyPk(ref);
    const company = profiles.get(pk);
    if (company) found.set(companyKey(ref), { company, periods: periods.get(pk) ?? [] });
  }
  return found;
}

/** Writes whole companies (profile and financials); used by data loads. */
export async function putCompanyRecords(records: CompanyRecord[]): Promise<void> {
  const items = records.flatMap(({ company, periods }) => {
    const pk = companyPk(company);
    const newestFirst = [...periods].sort((a, b) => b.endDate.localeCompare(a.endDate));
    return [
      { pk, sk: 'PROFILE', entity: 'Company', ...company },
      { pk, sk: 'FINANCIALS', entity: 'Financials', periods: JSON.stringify(newestFirst) },
    ];
  });
  await batchPut(tableName(), items);
}

function toCompany(item: Record<string, unknown>): Company {
  return {
    country: item['country'] as Company['country'],
    companyNumber: item['companyNumber'] as string,
    name: item['name'] as string,
    place: (item['place'] as string | undefined) ?? null,
    vatNumber: (item['vatNumber'] as string | undefined) ?? null,
    website: (item['website'] as string | undefined) ?? null,
  };
}

// ---- Tokens ----------------------------------------------------------------------------------

export interface StoredToken {
  /** Public handle for listing and revoking: the first 12 hex characters of the hash. */
  tokenId: string;
  hash: string;
  accountId: string;
  userEmail: string;
  scopes: Scope[];
  createdAt: string;
  expiresAt: string | null;
  revokedAt: string | null;
}

export async function getToken(hash: string): Promise<StoredToken | null> {
  const { Item } = await send(() =>
    dynamodb.send(new GetCommand({ TableName: tableName(), Key: { pk: tokenPk(hash), sk: 'TOKEN' } })),
  );
  return Item ? toToken(Item) : null;
}

/** Stores a new token; refuses to overwrite one with the same hash. */
export async function putToken(token: StoredToken): Promise<void> {
  await send(() =>
    dynamodb.send(
      new PutCommand({
        TableName: tableName(),
        Item: {
          pk: tokenPk(token.hash),
          sk: 'TOKEN',
          entity: 'Token',
          [GSI1.partitionKey]: 'TOKENS',
          [GSI1.sortKey]: `${token.createdAt}#${token.tokenId}`,
          ...token,
          // Absent rather than NULL, so `if_not_exists(revokedAt, …)` works in revokeToken.
          expiresAt: token.expiresAt ?? undefined,
          revokedAt: token.revokedAt ?? undefined,
        },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    ),
  );
}

export async function listTokens(): Promise<StoredToken[]> {
  const tokens: StoredToken[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await send(() =>
      dynamodb.send(
        new QueryCommand({
          TableName: tableName(),
          IndexName: GSI1.name,
          KeyConditionExpression: '#pk = :pk',
          ExpressionAttributeNames: { '#pk': GSI1.partitionKey },
          ExpressionAttributeValues: { ':pk': 'TOKENS' },
          ExclusiveStartKey: startKey,
        }),
      ),
    );
    tokens.push(...(page.Items ?? []).map(toToken));
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return tokens;
}

/** Marks a token revoked (idempotent: a second revoke keeps the first time). */
export async function revokeToken(hash: string, at: string): Promise<void> {
  await send(() =>
    dynamodb.send(
      new UpdateCommand({
        TableName: tableName(),
        Key: { pk: tokenPk(hash), sk: 'TOKEN' },
        UpdateExpression: 'SET revokedAt = if_not_exists(revokedAt, :at)',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeValues: { ':at': at },
      }),
    ),
  );
}

function toToken(item: Record<string, unknown>): StoredToken {
  return {
    tokenId: item['tokenId'] as string,
    hash: item['hash'] as string,
    accountId: item['accountId'] as string,
    userEmail: item['userEmail'] as string,
    scopes: (item['scopes'] as Scope[] | undefined) ?? [],
    createdAt: item['createdAt'] as string,
    expiresAt: (item['expiresAt'] as string | null | undefined) ?? null,
    revokedAt: (item['revokedAt'] as string | null | undefined) ?? null,
  };
}
