/**
 * Every key pattern of the one table, as pure functions. Domain stores build keys only through these.
 *
 * | Entity             | pk                                  | sk            | gsi1pk | gsi1sk                | Serves                                       |
 * |--------------------|-------------------------------------|---------------|--------|-----------------------|----------------------------------------------|
 * | Company            | COMPANY#<country>#<number>          | COMPANY       |        |                       | the whole record (profile, periods, shareholders, contacts) and its content hash: one read per company, one atomic write per import |
 * | Import change      | CHANGE#<changeId>                   | PART#<n>      |        |                       | the records before one import batch's changes, until their derivations ran (resumable import) |
 * | Contact claims     | CONTACTS#<contactId div 100>        | CONTACTS      |        |                       | which company each of 100 contact ids belongs to (unique across the service), one attribute `c<contactId>` each |
 * | Token              | TOKEN#<sha256 of token>             | TOKEN         | TOKENS | <createdAt>#<tokenId> | the authorizer's GetItem; the CLI's list     |
 * | Idempotency record | ACCOUNT#<account>#IDEMPOTENCY#<key> | IDEMPOTENCY   |        |                       | the first answer to an Idempotency-Key, per account, 24 h |
 *
 * Account-owned items carry the account in their partition key, so every lookup is scoped to the
 * caller by construction.
 */
import type { CompanyRef } from '../companies/identifiers';
import { tableDefinition } from './table';

export type Key = {
  pk: string;
  sk: string;
};

const [GSI1] = tableDefinition.indexes;

export const keys = {
  company: (ref: CompanyRef): Key => ({ pk: `COMPANY#${ref.country}#${ref.companyNumber}`, sk: 'COMPANY' }),
  importChange: (changeId: string, part: number): Key => ({ pk: `CHANGE#${changeId}`, sk: `PART#${part}` }),
  /** The claims of contact ids `100 × bucket` to `100 × bucket + 99`; see `contactBucket`. */
  contactClaims: (bucket: number): Key => ({ pk: `CONTACTS#${bucket}`, sk: 'CONTACTS' }),
  token: (hash: string): Key => ({ pk: `TOKEN#${hash}`, sk: 'TOKEN' }),
  /** The index entry that lists every token (CLI only, never on a request path). */
  tokenListing: (createdAt: string, tokenId: string) => ({
    [GSI1.partitionKey]: 'TOKENS',
    [GSI1.sortKey]: `${createdAt}#${tokenId}`,
  }),
  idempotency: (accountId: string, idempotencyKey: string): Key => ({
    pk: `ACCOUNT#${accountId}#IDEMPOTENCY#${idempotencyKey}`,
    sk: 'IDEMPOTENCY',
  }),
};

export const tokenIndex = { name: GSI1.name, partitionKey: GSI1.partitionKey, partitionValue: 'TOKENS' };

/** Contact ids are claimed 100 to an item: one write claims a batch's worth of neighbouring ids. */
export const contactBucket = (contactId: number): number => Math.floor(contactId / 100);
/** The attribute of a claim in its bucket item. */
export const contactClaimAttribute = (contactId: number): string => `c${contactId}`;

/** The company a company item belongs to: `COMPANY#BE#0403170701` → `{ country: 'BE', … }`. */
export function companyOfKey(pk: string): CompanyRef {
  const [, country, companyNumber] = pk.split('#');
  return { country: country as CompanyRef['country'], companyNumber: companyNumber! };
}
