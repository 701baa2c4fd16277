/**
 * Every partition family as an IAM `dynamodb:LeadingKeys` pattern (lib/storage/access.ts): its key
 * function (lib/storage/keys.ts) with `*` for every argument, so a pattern cannot drift from the keys it
 * stands for. Functions declare what they touch with these (a route's `storage` field:
 * `import * as partitions from '../storage/partitions'`, `[partitions.company]`); the stack turns that
 * into IAM. Each an export of its own, so a bundle carries only the families (and keys) it names.
 */
import type { CompanyRef } from '../company-ref';
import type { Partition } from './access';
import * as keys from './keys';
import { tableDefinition } from './table';

const [GSI1] = tableDefinition.indexes;
const ANY = '*';
const anyCompany = { country: ANY, companyNumber: ANY } as unknown as CompanyRef;
const anyNumber = ANY as unknown as number;

/** Company, relationships and lookalikes items of one company. */
export const company: Partition = { pattern: keys.company(anyCompany).pk };
export const legalEntity: Partition = { pattern: keys.legalEntity(ANY).pk };
export const lookalikeBlock: Partition = { pattern: keys.lookalikeBlock(ANY) };
export const lookalikeMarks: Partition = { pattern: keys.lookalikeMarks(anyNumber) };
export const lookalikeLease: Partition = { pattern: keys.lookalikeLease().pk };
export const importLease: Partition = { pattern: keys.importLease().pk };
export const importChange: Partition = { pattern: keys.importChange(ANY, anyNumber).pk };
export const registryDigest: Partition = { pattern: keys.registryDigest(ANY, ANY, ANY).pk };
export const registryRoster: Partition = { pattern: keys.registryRoster(ANY, ANY, ANY, ANY).pk };
export const contactClaims: Partition = { pattern: keys.contactClaims(anyNumber).pk };
/** Token items, by hash: the authorizer's only partition. */
export const token: Partition = { pattern: keys.token(ANY).pk };
/** The index entry listing every token (CLI only). */
export const tokenListing: Partition = {
  index: GSI1.name,
  pattern: keys.tokenListing(ANY, ANY)[GSI1.partitionKey],
};
export const idempotency: Partition = { pattern: keys.idempotency(ANY, ANY).pk };
/** An account's lists and the names they hold (nothing else is keyed `ACCOUNT#<account>` alone). */
export const accountLists: Partition = { pattern: keys.list(ANY, anyNumber).pk };
export const listIdClaims: Partition = { pattern: keys.listIdClaim(anyNumber).pk };
export const smartListEvaluations: Partition = { pattern: keys.smartListEvaluations() };
export const listMembers: Partition = { pattern: keys.listMember(ANY, anyNumber, anyCompany).pk };
export const listOrder: Partition = { pattern: keys.listOrderPartition(ANY, anyNumber, ANY) };
/** A list's order items of every state, in gsi1 (type ALL). */
export const listOrderAll: Partition = {
  index: GSI1.name,
  pattern: keys.listOrderAllPartition(ANY, anyNumber),
};
/** Every smart list's filters, for the import. */
export const smartLists: Partition = { pattern: keys.smartLists() };
/** Filter profiles, and their entries by NACE division and place (`FILTER_PROFILES#<country>#ACT#…`). */
export const filterProfiles: Partition = { pattern: keys.filterProfiles(ANY, anyNumber) };
/** Counts of companies per country, NACE code prefix, place and band, for estimating smart filters. */
export const matchCounts: Partition = { pattern: keys.matchCounts(ANY) };
export const matchCountsApplied: Partition = { pattern: keys.matchCountsAppliedPartition() };
/** An operator's recounts of the match counts, and the counts they build. */
export const matchCountsRecount: Partition = { pattern: keys.matchCountsRecount(ANY).pk };
export const matchCountsRebuild: Partition = { pattern: keys.matchCountsRebuild(ANY, ANY) };
export const smartListFlips: Partition = { pattern: keys.smartListFlips(anyNumber) };
/** Companies whose numbers of contacts an import changed, for its completion. */
export const contactsChanged: Partition = { pattern: keys.contactsChangedShard(anyNumber) };
/** Deleted lists whose members the clean-up worker still has to delete. */
export const listCleanups: Partition = { pattern: keys.listCleanups() };
/** The lists a company is in, across accounts (import only). */
export const listMemberships: Partition = { index: GSI1.name, pattern: keys.listedCompany(anyCompany) };
export const matchIndex: Partition = { pattern: keys.matchIndex(ANY as 'VAT', ANY).pk };
export const searchWords: Partition = { pattern: keys.searchWords(ANY, ANY).pk };
export const events: Partition = { pattern: keys.events(ANY) };
export const eventLog: Partition = { pattern: keys.eventLog(ANY) };
export const webhooks: Partition = { pattern: keys.webhooks(ANY) };
export const webhookDeliveries: Partition = { pattern: keys.webhookDeliveries(ANY, ANY) };
export const webhookListings: Partition = { pattern: keys.webhookListings() };
export const registryProgress: Partition = { pattern: keys.registryProgress(ANY).pk };
export const registryLinks: Partition = { pattern: keys.registryLink(ANY, ANY).pk };
export const watchedLists: Partition = { pattern: keys.watchedLists() };
export const deliveriesDue: Partition = { pattern: keys.deliveriesDue(anyNumber) };
