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
import { tableDefinition, type TableIndexName } from './table';

const [GSI1] = tableDefinition.indexes;
const GSI1_NAME = GSI1.name;
const ANY = '*';
const anyCompany = { country: ANY, companyNumber: ANY } as unknown as CompanyRef;
const anyNumber = ANY as unknown as number;

/**
 * A family whose pattern is made from its key function when first read. The stack, the tests and the
 * in-process access check read patterns; a deployed function, whose calls IAM checks, only names its
 * families, so it runs no key function for them when it loads. Marked `@__PURE__` (its arguments are a
 * function and a name), so esbuild drops every family a bundle does not name, and the key functions
 * only those reach.
 */
function family(pattern: () => string, index?: TableIndexName): Partition {
  let made: string | undefined;
  return {
    ...(index === undefined ? {} : { index }),
    get pattern() {
      return (made ??= pattern());
    },
  };
}

/** Company, relationships and lookalikes items of one company. */
export const company: Partition = /* @__PURE__ */ family(() => keys.company(anyCompany).pk);
export const legalEntity: Partition = /* @__PURE__ */ family(() => keys.legalEntity(ANY).pk);
export const lookalikeBlock: Partition = /* @__PURE__ */ family(() => keys.lookalikeBlock(ANY));
export const lookalikeMarks: Partition = /* @__PURE__ */ family(() => keys.lookalikeMarks(anyNumber));
export const lookalikeLease: Partition = /* @__PURE__ */ family(() => keys.lookalikeLease().pk);
export const importLease: Partition = /* @__PURE__ */ family(() => keys.importLease().pk);
export const importChange: Partition = /* @__PURE__ */ family(() => keys.importChange(ANY, anyNumber).pk);
export const registryDigest: Partition = /* @__PURE__ */ family(() => keys.registryDigest(ANY, ANY, ANY).pk);
export const registryRoster: Partition = /* @__PURE__ */ family(
  () => keys.registryRoster(ANY, ANY, ANY, ANY).pk,
);
export const contactClaims: Partition = /* @__PURE__ */ family(() => keys.contactClaims(anyNumber).pk);
/** Token items, by hash: the authorizer's only partition. */
export const token: Partition = /* @__PURE__ */ family(() => keys.token(ANY).pk);
/** The index entry listing every token (CLI only). */
export const tokenListing: Partition = /* @__PURE__ */ family(
  () => keys.tokenListing(ANY, ANY)[GSI1.partitionKey],
  GSI1_NAME,
);
export const idempotency: Partition = /* @__PURE__ */ family(() => keys.idempotency(ANY, ANY).pk);
/** An account's lists and the names they hold (nothing else is keyed `ACCOUNT#<account>` alone). */
export const accountLists: Partition = /* @__PURE__ */ family(() => keys.list(ANY, anyNumber).pk);
export const listIdClaims: Partition = /* @__PURE__ */ family(() => keys.listIdClaim(anyNumber).pk);
export const smartListEvaluations: Partition = /* @__PURE__ */ family(() => keys.smartListEvaluations());
export const listMembers: Partition = /* @__PURE__ */ family(
  () => keys.listMember(ANY, anyNumber, anyCompany).pk,
);
export const listOrder: Partition = /* @__PURE__ */ family(() =>
  keys.listOrderPartition(ANY, anyNumber, ANY),
);
/** A list's order items of every state, in gsi1 (type ALL). */
export const listOrderAll: Partition = /* @__PURE__ */ family(
  () => keys.listOrderAllPartition(ANY, anyNumber),
  GSI1_NAME,
);
/** Every smart list's filters, for the import. */
export const smartLists: Partition = /* @__PURE__ */ family(() => keys.smartLists());
/** Filter profiles, and their entries by NACE division and place (`FILTER_PROFILES#<country>#ACT#…`). */
export const filterProfiles: Partition = /* @__PURE__ */ family(() => keys.filterProfiles(ANY, anyNumber));
/** Counts of companies per country, NACE code prefix, place and band, for estimating smart filters. */
export const matchCounts: Partition = /* @__PURE__ */ family(() => keys.matchCounts(ANY));
export const matchCountsApplied: Partition = /* @__PURE__ */ family(() => keys.matchCountsAppliedPartition());
/** An operator's recounts of the match counts, and the counts they build. */
export const matchCountsRecount: Partition = /* @__PURE__ */ family(() => keys.matchCountsRecount(ANY).pk);
export const matchCountsRebuild: Partition = /* @__PURE__ */ family(() => keys.matchCountsRebuild(ANY, ANY));
export const smartListFlips: Partition = /* @__PURE__ */ family(() => keys.smartListFlips(anyNumber));
/** Companies whose numbers of contacts an import changed, for its completion. */
export const contactsChanged: Partition = /* @__PURE__ */ family(() => keys.contactsChangedShard(anyNumber));
/** Deleted lists whose members the clean-up worker still has to delete. */
export const listCleanups: Partition = /* @__PURE__ */ family(() => keys.listCleanups());
/** The lists a company is in, across accounts (import only). */
export const listMemberships: Partition = /* @__PURE__ */ family(
  () => keys.listedCompany(anyCompany),
  GSI1_NAME,
);
export const matchIndex: Partition = /* @__PURE__ */ family(() => keys.matchIndex(ANY as 'VAT', ANY).pk);
export const searchWords: Partition = /* @__PURE__ */ family(() => keys.searchWords(ANY, ANY).pk);
export const events: Partition = /* @__PURE__ */ family(() => keys.events(ANY));
export const eventLog: Partition = /* @__PURE__ */ family(() => keys.eventLog(ANY));
export const webhooks: Partition = /* @__PURE__ */ family(() => keys.webhooks(ANY));
export const webhookDeliveries: Partition = /* @__PURE__ */ family(() => keys.webhookDeliveries(ANY, ANY));
export const webhookListings: Partition = /* @__PURE__ */ family(() => keys.webhookListings());
export const registryProgress: Partition = /* @__PURE__ */ family(() => keys.registryProgress(ANY).pk);
export const registryLinks: Partition = /* @__PURE__ */ family(() => keys.registryLink(ANY, ANY).pk);
export const watchedLists: Partition = /* @__PURE__ */ family(() => keys.watchedLists());
export const deliveriesDue: Partition = /* @__PURE__ */ family(() => keys.deliveriesDue(anyNumber));
