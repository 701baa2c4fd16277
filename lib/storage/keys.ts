/**
 * Every key pattern of the one table, as pure functions. Domain stores build keys only through these,
 * imported as one namespace (`import * as keys from '../storage/keys'`; `keys.company(ref)`): each key is
 * an export of its own, so a function's bundle carries only the keys it uses. The IAM partition
 * patterns are built from them in lib/storage/partitions.ts.
 *
 * | Entity             | pk                                  | sk            | gsi1pk | gsi1sk                | Serves                                       |
 * |--------------------|-------------------------------------|---------------|--------|-----------------------|----------------------------------------------|
 * | Company            | COMPANY#<country>#<number>          | COMPANY       |        |                       | the whole record (profile, periods, shareholders, contacts), the figures details show of it, and its content hash: one read per company, one atomic write per import |
 * | Relationships      | COMPANY#<country>#<number>          | RELATIONSHIPS |        |                       | derived from holdings (§6.2, §6.4): the company's own identifier and legal entity id, its parents list, attributes `n#<holder>` (registered holders' names) and `c#<held>` (one per company it holds): relationships and legal entities, one read per company |
 * | Legal entity       | LEGAL_ENTITY#<legalEntityId>        | LEGAL_ENTITY  |        |                       | an id's entity (country, number): lookup by id in one GetItem; its conditional put detects a colliding id |
 * | Lookalikes         | COMPANY#<country>#<number>          | LOOKALIKES    |        |                       | a company's identifier and its best 100 lookalikes (§6.3), one binary attribute of 6 bytes a lookalike: one read per company |
 * | Filed periods      | COMPANY#<country>#<number>          | FILINGS       |        |                       | (ext) no longer written: a stage's record of filings from before it moved onto the company item (`filed`, lib/filings/store.ts), read only for a company with periods and no `filed` |
 * | Update feed        | COMPANY#<country>#<number>          | UPDATES       |        |                       | every update derived from the company's changes (§8), one attribute `u#<id>` each (added only where absent: an id is never stored twice; total = their number): one read per legal entity, after its id is resolved by the Legal entity item; 100 entities = 2 rounds of BatchGetItem |
 * | Lookalike features | LOOKALIKE_BLOCK#<NACE division>     | COMPANY#<country>#<number> |  |                  | what a company is compared on, and its 100th score: a block's candidates in one Query (import-time recompute, full job) |
 * | Lookalike mark     | LOOKALIKE_DIRTY#<0..15>             | BATCH#<changeId>#<part> | |               | the companies of one import batch whose lookalikes must be recomputed, with their features before the change (import completion); one per batch |
 * | Lookalike lease    | LOOKALIKE_LEASE                     | LEASE         |        |                       | the one recompute of the lists that may run (its holder and expiry): a conditional put takes it, a conditional delete releases it |
 * | Import lease       | IMPORT_LEASE                        | LEASE         |        |                       | the one import run of the stage that may write companies (its holder and expiry; lib/import/lease.ts) |
 * | Import change      | CHANGE#<changeId>                   | PART#<n>      |        |                       | the records before one import batch's changes, until their derivations ran (resumable import) |
 * | Registry digest    | REGISTRY_DIGEST#<source>#<country>#<block> | DIGEST |      |                       | the hash of a registry's units of one block of company numbers as last imported, the run that wrote it and a token other writers replace: a registry file imported again reads one item per block, not per company (lib/import/registry-digest.ts); block `KEPT`: the mark that the registry keeps digests of the country, read once a run by an import creating companies of it |
 * | Registry roster    | REGISTRY_ROSTER#<source>#<country>#<0..15> / …#BUILT | <block> / BUILT | |              | (ext) the companies a registry wrote that are not stopped, a string set per block of company numbers, kept by every import's write; `BUILT` says the roster is whole: a full extract finds what it no longer holds by one Query per shard, not a Scan (lib/import/registry-roster.ts) |
 * | Contact claims     | CONTACTS#<contactId div 100>        | CONTACTS      |        |                       | which company each of 100 contact ids belongs to (unique across the service), one attribute `c<contactId>` each |
 * | Token              | TOKEN#<sha256 of token>             | TOKEN         | TOKENS | <createdAt>#<tokenId> | the authorizer's GetItem; the CLI's list     |
 * | Idempotency record | ACCOUNT#<account>#IDEMPOTENCY#<key> | IDEMPOTENCY   |        |                       | the first answer to an Idempotency-Key, per account, 24 h |
 * | List               | ACCOUNT#<account>                   | LIST#<id>     |        |                       | a list and its counters (per state, contacts) (§7): GetItem by id, one Query for the account's overview |
 * | List name          | ACCOUNT#<account>                   | LISTNAME#<trimmed name, lower case> |  |         | a name taken in the account (§7.6: unique, case-insensitive): a conditional put in the list's own transaction makes two creates with one name race-safe |
 * | Smart list         | SMART_LISTS                         | ACCOUNT#<account>#LIST#<id> |  |               | a SMART list's filters, for the import: one Query finds every smart list, filed in memory by country and NACE division (never on a request path) |
 * | Filter profile     | FILTER_PROFILES#<country>#<0..7>    | <number>      |        |                       | what smart-list filters read of a company (activities, place, latest employees, assets, health), kept by the import: evaluating a new filter reads these partitions (only the filter's countries) in parallel, never the company items |
 * | Filter profile entry | FILTER_PROFILES#<country>#ACT#<NACE division> / FILTER_PROFILES#<country>#PLACE#<place key> / FILTER_PROFILES#<country>#RANGE#<employees or totalAssets> | <code>#<number> / <number> / <sortable value>#<number> | | | (ext) an active company's filter profile again, under each of its NACE codes, under its place, and under each figure in its tail (lib/lists/range-entries.ts), kept by the import with the profile: a smart filter's candidates of one code prefix (`begins_with`), place, or range in a tail (`BETWEEN`) in one Query (lib/lists/smart-candidates.ts); `INDEX` in the match counts says which of the country's entries are whole |
 * | Match counts       | MATCH_COUNTS#<country>              | ALL, ACT#<NACE division>, PLACE#<place key>, INDEX | | | (ext) counts of the country's active companies with a filter profile (ALL: `n` and histogram bands of employees, assets, health; ACT: `c<code prefix>` per prefix of the division; PLACE: `n`), moved by the import once per batch: a new smart filter's matches are estimated from these (lib/lists/store/match-counts.ts) |
 * | Match counts batch | MATCH_COUNTS_APPLIED                | <change id>#<part> |   |                       | (ext) an import batch's moves of the match counts applied, put in their transaction so a batch derived again moves them once; 30-day TTL |
 * | Match counts recount | MATCH_COUNTS_RECOUNT              | <country>     |        |                       | (ext) an operator's recount of a country's match counts from its filter profiles: its run, turn, phase and cursor (lib/lists/match-recount.ts) |
 * | Match counts rebuilt | MATCH_COUNTS_REBUILD#<country>#<run> | as Match counts | |                    | (ext) the counts a recount run builds, turn by turn, before they replace the country's; 30-day TTL |
 * | Smart-list flip    | SMART_FLIP#<0..15>                  | ACCOUNT#<account>#LIST#<id>#COMPANY#<country>#<number>#<change> | | | a changed company that enters or leaves a smart list, written by the import's derivation (batched) and applied per list by its completion |
 * | List clean-up      | LIST_CLEANUP                        | ACCOUNT#<account>#LIST#<id> |  |               | a deleted list whose members and order items the clean-up worker still has to delete |
 * | List id claim      | LIST_ID#<id>                        | LIST_ID       |        |                       | a random list id taken (a conditional put in the create's transaction: unique across the service, revealing nothing) |
 * | List count         | ACCOUNT#<account>                   | LIST_COUNT    |        |                       | how many lists the account has (§2.1: at most 200), moved in the create's and delete's transactions; `smartCompanies`: what its smart lists hold (§7.6: at most 1,000,000), moved in the transactions of the lists' writes (lib/lists/store/smart-holds.ts) |
 * | Smart evaluation   | SMART_EVAL                          | ACCOUNT#<account>#LIST#<id> | |               | a smart list's evaluation left to the background worker (§7.6): its filters, cursor, last turn and lease (lib/lists/store/smart-jobs.ts); one Query finds every job |
 * | Account plan       | PLAN#<account>                      | PLAN          |        |                       | the account's fair-use tier (§13) and, on a deployed stage, the id of its API Gateway key |
 * | Audit record       | AUDIT#<yyyy-mm>                     | <at>#<random> |        |                       | who created or revoked a token or changed a plan, and when (never the token), kept a year (ttl) |
 * | List member        | ACCOUNT#<account>#LIST#<id>         | COMPANY#<country>#<number> | LISTED#<country>#<number> | ACCOUNT#<account>#LIST#<id> | a company in a list: state, matchedSince, contact count; "add only if absent" by a conditional put; gsi1 = the lists a company is in (import keeps contact counts) |
 * | List order         | ACCOUNT#<account>#LIST#<id>#<state> | <999…−ms(matchedSince)>#<country>#<number> | ACCOUNT#<account>#LIST#<id>#ALL | = sk | a list's companies in the contract's order (matchedSince desc, country, number): of one state in the table, of every state in gsi1; a page is one Query from the nearer end (at most min(offset + limit, total − offset) items) |
 * | Match index        | MATCH#VAT#<vat> / MATCH#DOMAIN#<domain> / MATCH#NAME#<country>#<name> | MATCH | |      | the companies (string set `BE#0403170701`) with this VAT, website domain or normalised name: one BatchGet for 100 PUT entries (§7.5), kept by the import |
 * | Search word        | SEARCH#<country>#<first character of the word> | <word>#<number> |  |              | one word of a company's normalised name, with the name, place and all its words (§6.5 search): the companies with a word starting with a prefix in one Query (`begins_with`), kept by the import |
 * | Event page         | ACCOUNT#<account>#EVENTS            | <last sequence, 16 digits> |  |          | an account's events (§12) in the feed's order, one item for those one transaction wrote (their numbers, ids and JSON as sent): a page of the feed is one Query from the item holding the number after the cursor; 30-day TTL |
 * | Event log          | ACCOUNT#<account>#EVENT_LOG         | SEQUENCE / CHANGE#<changeId>#<part, 4 digits> | | | the account's last event number (moved in the transaction that writes the events it numbers) and the event ids each import batch wrote, per transaction (a resumed batch writes only the others) |
 * | Webhook endpoint   | ACCOUNT#<account>#WEBHOOKS          | WEBHOOK#<id> / COUNT |  |                      | an account's webhook endpoints (§12), their sealed secrets and the feed position delivered from, and their number (≤ 5, moved in the same transaction): one Query for all |
 * | Watched list       | WATCHED_LISTS                       | ACCOUNT#<account>#LIST#<id> |  |                | a STATIC list with notifications enabled (§12), written with the list: the import reads this one partition per batch and looks up no company's lists when it is empty; `BACKFILL` records the last run of the backfill of lists older than this index |
 * | Webhook listing    | WEBHOOK_ENDPOINTS                   | ACCOUNT#<account>#WEBHOOK#<id> | |                 | every endpoint of the service, for the delivery fan-out (one Query; never on a request path) |
 * | Registry progress  | REGISTRY#<source>                   | PROGRESS      |        |                       | (ext) the last extract of a registry applied to the stage (KBO `ExtractNumber`) and the one running: an update in order or refused, one GetItem (§11.5.2) |
 * | Registry link      | REGISTRY_LINK#<source>#<entity>     | LINK          |        |                       | (ext) the company a registry's sub-entity belongs to (a KBO establishment's enterprise), written with the company's registry rows: an update naming only the establishment finds its enterprise, one BatchGet for 100 |
 * | Company erased     | COMPANY#<country>#<number>          | ERASED        |        |                       | (ext) a company erased because its registry now withholds its name (§11.5.6): the import change that erased it, nothing personal; its journal is found again from it when the run was cut off |
 * | Delivery due       | WEBHOOK_DUE#<0..3>                  | <due ms, 15 digits>#<account>#<id>#<eventId> | |    | a delivery attempt waiting for its time (the local stage's queue; SQS on AWS), with the event's body |
 * | Webhook delivery   | ACCOUNT#<account>#WEBHOOK#<id>#DELIVERIES | <newest first: 999…−ms>#<eventId>#<attempt> | | | each delivery attempt, newest first: the deliveries log is one Query; 30-day TTL |
 *
 * Account-owned items carry the account in their partition key, so every lookup is scoped to the
 * caller by construction.
 */
import type { CompanyRef } from '../company-ref';
import { tableDefinition } from './table';

export type Key = {
  pk: string;
  sk: string;
};

const [GSI1] = tableDefinition.indexes;

/** The sort key prefix of a lookalike floor item in its block (`keys.lookalikeFloor`). */
export const LOOKALIKE_FLOOR = 'FLOOR#';

export const company = (ref: CompanyRef): Key => ({
  pk: `COMPANY#${ref.country}#${ref.companyNumber}`,
  sk: 'COMPANY',
});
export const relationships = (ref: CompanyRef): Key => ({
  pk: `COMPANY#${ref.country}#${ref.companyNumber}`,
  sk: 'RELATIONSHIPS',
});
export const legalEntity = (legalEntityId: string): Key => ({
  pk: `LEGAL_ENTITY#${legalEntityId}`,
  sk: 'LEGAL_ENTITY',
});
export const lookalikes = (ref: CompanyRef): Key => ({
  pk: `COMPANY#${ref.country}#${ref.companyNumber}`,
  sk: 'LOOKALIKES',
});
export const filedPeriods = (ref: CompanyRef): Key => ({
  pk: `COMPANY#${ref.country}#${ref.companyNumber}`,
  sk: 'FILINGS',
});
export const updateFeed = (ref: CompanyRef): Key => ({
  pk: `COMPANY#${ref.country}#${ref.companyNumber}`,
  sk: 'UPDATES',
});
/** The partition of one lookalike block (a NACE division): every company's features in it. */
export const lookalikeBlock = (block: string): string => `LOOKALIKE_BLOCK#${block}`;
export const lookalikeFeatures = (block: string, ref: CompanyRef): Key => ({
  pk: `LOOKALIKE_BLOCK#${block}`,
  sk: `COMPANY#${ref.country}#${ref.companyNumber}`,
});
/**
 * A company's floor (its 100th score) beside its features, in an item of its own: the recompute writes
 * floors, the import features, so neither can write back the other's older value.
 */
export const lookalikeFloor = (block: string, ref: CompanyRef): Key => ({
  pk: `LOOKALIKE_BLOCK#${block}`,
  sk: `${LOOKALIKE_FLOOR}${ref.country}#${ref.companyNumber}`,
});
/** The partition of one shard of lookalike marks (spread over 16, so a big import has no hot partition). */
export const lookalikeMarks = (shard: number): string => `LOOKALIKE_DIRTY#${shard}`;
/** One mark per import batch (`changeId`), `part` naming which of its companies it holds. */
export const lookalikeMark = (changeId: string, part: string): Key => ({
  pk: `LOOKALIKE_DIRTY#${shardOfText(changeId, LOOKALIKE_MARK_SHARDS)}`,
  sk: `BATCH#${changeId}#${part}`,
});
/** The one lookalike recompute, and the one import run, at a time (lib/lookalikes/lease.ts, lib/import/lease.ts): who holds it, until when. */
export const lookalikeLease = (): Key => ({ pk: 'LOOKALIKE_LEASE', sk: 'LEASE' });
export const importLease = (): Key => ({ pk: 'IMPORT_LEASE', sk: 'LEASE' });
export const importChange = (changeId: string, part: number): Key => ({
  pk: `CHANGE#${changeId}`,
  sk: `PART#${part}`,
});
/** The claims of contact ids `100 × bucket` to `100 × bucket + 99`; see `contactBucket`. */
export const registryDigest = (source: string, country: string, block: string): Key => ({
  pk: `REGISTRY_DIGEST#${source}#${country}#${block}`,
  sk: 'DIGEST',
});
/** (ext) A block's companies in a registry's roster, in one of its shards (`shard` a number, or `BUILT` for its mark). */
export const registryRoster = (source: string, country: string, shard: string, block: string): Key => ({
  pk: `REGISTRY_ROSTER#${source}#${country}#${shard}`,
  sk: block,
});
export const contactClaims = (bucket: number): Key => ({ pk: `CONTACTS#${bucket}`, sk: 'CONTACTS' });
export const token = (hash: string): Key => ({ pk: `TOKEN#${hash}`, sk: 'TOKEN' });
/** The index entry that lists every token (CLI only, never on a request path). */
export const tokenListing = (createdAt: string, tokenId: string) => ({
  [GSI1.partitionKey]: 'TOKENS',
  [GSI1.sortKey]: `${createdAt}#${tokenId}`,
});
export const idempotency = (accountId: string, idempotencyKey: string): Key => ({
  pk: `ACCOUNT#${accountId}#IDEMPOTENCY#${idempotencyKey}`,
  sk: 'IDEMPOTENCY',
});
export const list = (accountId: string, listId: number): Key => ({
  pk: `ACCOUNT#${accountId}`,
  sk: `LIST#${listId}`,
});
/** The partition of an account's lists and the sk prefix of a list (the overview's Query). */
export const accountLists = (accountId: string) => ({ pk: `ACCOUNT#${accountId}`, skPrefix: 'LIST#' });
export const listIdClaim = (listId: number): Key => ({ pk: `LIST_ID#${listId}`, sk: 'LIST_ID' });
export const listCount = (accountId: string): Key => ({ pk: `ACCOUNT#${accountId}`, sk: 'LIST_COUNT' });
export const smartListEvaluation = (accountId: string, listId: number): Key => ({
  pk: 'SMART_EVAL',
  sk: `ACCOUNT#${accountId}#LIST#${listId}`,
});
export const smartListEvaluations = (): string => 'SMART_EVAL';
/** `nameKey`: the trimmed name in lower case (lib/lists/manage.ts `nameKeyOf`). */
export const listName = (accountId: string, nameKey: string): Key => ({
  pk: `ACCOUNT#${accountId}`,
  sk: `LISTNAME#${nameKey}`,
});
export const smartList = (accountId: string, listId: number): Key => ({
  pk: 'SMART_LISTS',
  sk: `ACCOUNT#${accountId}#LIST#${listId}`,
});
export const smartLists = (): string => 'SMART_LISTS';
export const filterProfile = (ref: CompanyRef): Key => ({
  pk: `FILTER_PROFILES#${ref.country}#${shardOf(ref, FILTER_PROFILE_SHARDS)}`,
  sk: ref.companyNumber,
});
export const filterProfiles = (country: string, shard: number): string =>
  `FILTER_PROFILES#${country}#${shard}`;
/** A country's counts of companies for estimating smart filters (`sk`: ALL, ACT#<division>, PLACE#<place>, INDEX). */
export const matchCount = (country: string, sk: string): Key => ({ pk: matchCounts(country), sk });
export const matchCounts = (country: string): string => `MATCH_COUNTS#${country}`;
/** The mark of an import batch's part whose moves of the match counts are applied. */
export const matchCountsApplied = (changeId: string, part: number): Key => ({
  pk: matchCountsAppliedPartition(),
  sk: `${changeId}#${part}`,
});
export const matchCountsAppliedPartition = (): string => 'MATCH_COUNTS_APPLIED';
/** A recount of a country's match counts: where it stands. */
export const matchCountsRecount = (country: string): Key => ({ pk: 'MATCH_COUNTS_RECOUNT', sk: country });
/** The counts a recount run builds for a country (items as in `matchCounts`). */
export const matchCountsRebuild = (country: string, run: string): string =>
  `MATCH_COUNTS_REBUILD#${country}#${run}`;
export const listCleanup = (accountId: string, listId: number): Key => ({
  pk: 'LIST_CLEANUP',
  sk: `ACCOUNT#${accountId}#LIST#${listId}`,
});
export const listCleanups = (): string => 'LIST_CLEANUP';
export const smartListFlips = (shard: number): string => `SMART_FLIP#${shard}`;
/**
 * One changed company's flips, every smart list it enters or leaves (the lists are in the item).
 * `change`: unique per derivation, so concurrent imports never overwrite each other's flips.
 */
export const smartListFlip = (ref: CompanyRef, change: string): Key => ({
  pk: `SMART_FLIP#${shardOf(ref, SMART_FLIP_SHARDS)}`,
  sk: `COMPANY#${ref.country}#${ref.companyNumber}#${change}`,
});
export const contactsChangedShard = (shard: number): string => `CONTACTS_CHANGED#${shard}`;
/** `change`: the import batch's change id, so concurrent imports never overwrite each other's notes. */
export const contactsChanged = (ref: CompanyRef, change: string): Key => ({
  pk: `CONTACTS_CHANGED#${shardOf(ref, CONTACTS_CHANGED_SHARDS)}`,
  sk: `COMPANY#${ref.country}#${ref.companyNumber}#${change}`,
});
/** The partitions a list's companies live in: members, and the order items of each state. */
export const listPartitions = (accountId: string, listId: number, states: readonly string[]): string[] => [
  `ACCOUNT#${accountId}#LIST#${listId}`,
  ...states.map((state) => `ACCOUNT#${accountId}#LIST#${listId}#${state}`),
];
export const listMember = (accountId: string, listId: number, ref: CompanyRef): Key => ({
  pk: `ACCOUNT#${accountId}#LIST#${listId}`,
  sk: `COMPANY#${ref.country}#${ref.companyNumber}`,
});
/** The index entry of a list member: every list a company is in, across accounts (import only). */
export const listMembership = (accountId: string, listId: number, ref: CompanyRef) => ({
  [GSI1.partitionKey]: `LISTED#${ref.country}#${ref.companyNumber}`,
  [GSI1.sortKey]: `ACCOUNT#${accountId}#LIST#${listId}`,
});
export const listedCompany = (ref: CompanyRef): string => `LISTED#${ref.country}#${ref.companyNumber}`;
/** The partition of a list's members in one state, in the contract's order. */
export const listOrderPartition = (accountId: string, listId: number, state: string): string =>
  `ACCOUNT#${accountId}#LIST#${listId}#${state}`;
export const listOrder = (
  accountId: string,
  listId: number,
  state: string,
  matchedSinceMs: number,
  ref: CompanyRef,
): Key => ({
  pk: `ACCOUNT#${accountId}#LIST#${listId}#${state}`,
  sk: listOrderSortKey(matchedSinceMs, ref),
});
/** The index entry of an order item: every state of the list in one order (type ALL). */
export const listOrderAll = (accountId: string, listId: number, matchedSinceMs: number, ref: CompanyRef) => ({
  [GSI1.partitionKey]: `ACCOUNT#${accountId}#LIST#${listId}#ALL`,
  [GSI1.sortKey]: listOrderSortKey(matchedSinceMs, ref),
});
/** The gsi1 partition of a list's order items of every state. */
export const listOrderAllPartition = (accountId: string, listId: number): string =>
  `ACCOUNT#${accountId}#LIST#${listId}#ALL`;
/** `word`: one word of a normalised name (lib/companies/normalise.ts `nameWords`), never empty. */
export const searchWord = (ref: CompanyRef, word: string): Key => ({
  pk: `SEARCH#${ref.country}#${word.charAt(0)}`,
  sk: `${word}#${ref.companyNumber}`,
});
/** The partition a word prefix is looked up in, and the sort key prefix of its words. */
export const searchWords = (country: string, prefix: string) => ({
  pk: `SEARCH#${country}#${prefix.charAt(0)}`,
  skPrefix: prefix,
});
export const matchIndex = (kind: MatchKind, value: string): Key => ({
  pk: `MATCH#${matchIndexText(kind, value)}`,
  sk: 'MATCH',
});
/** The partition of an account's events (§12); `event` is the page item whose last number is `sequence`. */
export const events = (accountId: string): string => `ACCOUNT#${accountId}#EVENTS`;
export const event = (accountId: string, sequence: number): Key => ({
  pk: `ACCOUNT#${accountId}#EVENTS`,
  sk: eventSequenceKey(sequence),
});
/** The partition of an account's event numbering: the last number and the events each batch wrote. */
export const eventLog = (accountId: string): string => `ACCOUNT#${accountId}#EVENT_LOG`;
export const eventSequence = (accountId: string): Key => ({
  pk: `ACCOUNT#${accountId}#EVENT_LOG`,
  sk: 'SEQUENCE',
});
/** The events part `part` of an import batch wrote; `eventBlocksOf` is the prefix of all its parts. */
export const eventBlock = (accountId: string, changeId: string, part: number): Key => ({
  pk: `ACCOUNT#${accountId}#EVENT_LOG`,
  sk: `${eventBlocksOf(changeId)}${String(part).padStart(4, '0')}`,
});
export const watchedLists = (): string => 'WATCHED_LISTS';
export const watchedList = (accountId: string, listId: number): Key => ({
  pk: 'WATCHED_LISTS',
  sk: `ACCOUNT#${accountId}#LIST#${listId}`,
});
/** Beside the watched lists: when the backfill of lists older than this index last ran. */
/** (ext) A registry's extracts applied to the stage (lib/import/registry-progress.ts). */
export const registryProgress = (source: string): Key => ({ pk: `REGISTRY#${source}`, sk: 'PROGRESS' });
/** (ext) The company a registry's sub-entity (a KBO establishment, by its digits) belongs to. */
export const registryLink = (source: string, entity: string): Key => ({
  pk: `REGISTRY_LINK#${source}#${entity}`,
  sk: 'LINK',
});
/** (ext) The mark of a company erased (lib/import/erase.ts): beside the company item, which is gone. */
export const companyErased = (ref: CompanyRef): Key => ({
  pk: `COMPANY#${ref.country}#${ref.companyNumber}`,
  sk: 'ERASED',
});
export const watchedListsBackfill = (): Key => ({ pk: 'WATCHED_LISTS', sk: 'BACKFILL' });
export const webhooks = (accountId: string): string => `ACCOUNT#${accountId}#WEBHOOKS`;
export const webhook = (accountId: string, webhookId: string): Key => ({
  pk: `ACCOUNT#${accountId}#WEBHOOKS`,
  sk: `WEBHOOK#${webhookId}`,
});
export const webhookCount = (accountId: string): Key => ({
  pk: `ACCOUNT#${accountId}#WEBHOOKS`,
  sk: 'COUNT',
});
export const webhookListings = (): string => 'WEBHOOK_ENDPOINTS';
export const webhookListing = (accountId: string, webhookId: string): Key => ({
  pk: 'WEBHOOK_ENDPOINTS',
  sk: `ACCOUNT#${accountId}#WEBHOOK#${webhookId}`,
});
export const deliveriesDue = (shard: number): string => `WEBHOOK_DUE#${shard}`;
export const deliveryDue = (dueMs: number, accountId: string, webhookId: string, eventId: string): Key => ({
  pk: `WEBHOOK_DUE#${shardOfText(`${webhookId}#${eventId}`, DELIVERY_DUE_SHARDS)}`,
  sk: `${String(dueMs).padStart(15, '0')}#${accountId}#${webhookId}#${eventId}`,
});
export const webhookDeliveries = (accountId: string, webhookId: string): string =>
  `ACCOUNT#${accountId}#WEBHOOK#${webhookId}#DELIVERIES`;
export const webhookDelivery = (
  accountId: string,
  webhookId: string,
  atMs: number,
  eventId: string,
  attempt: number,
): Key => ({
  pk: `ACCOUNT#${accountId}#WEBHOOK#${webhookId}#DELIVERIES`,
  sk: `${String(LIST_ORDER_CEILING - atMs).padStart(15, '0')}#${eventId}#${String(attempt).padStart(2, '0')}`,
});

/** Event numbers as sort keys: 16 digits, so their text order is their numeric order. */
export const eventSequenceKey = (sequence: number): string => String(sequence).padStart(16, '0');
/** The sort key prefix of the event blocks of one import batch (`keys.eventBlock`). */
export const eventBlocksOf = (changeId: string): string => `CHANGE#${changeId}#`;
/** Deliveries due are spread over this many partitions, read in parallel. */
export const DELIVERY_DUE_SHARDS = 4;

export type MatchKind = 'VAT' | 'DOMAIN' | 'NAME';
/** A match-index entry's text (`VAT#BE0403170701`): its key without the prefix, and how matching names it. */
export const matchIndexText = (kind: MatchKind, value: string): string => `${kind}#${value}`;
/** `matchIndex`'s partition key → the entry's text. */
export const matchIndexTextOfKey = (pk: string): string => pk.slice('MATCH#'.length);

export const tokenIndex = { name: GSI1.name, partitionKey: GSI1.partitionKey, partitionValue: 'TOKENS' };

/** Contact ids are claimed 100 to an item: one write claims a batch's worth of neighbouring ids. */
export const contactBucket = (contactId: number): number => Math.floor(contactId / 100);
/** The attribute of a claim in its bucket item. */
export const contactClaimAttribute = (contactId: number): string => `c${contactId}`;

/** In a company's relationships item: the registered name and place of a company that holds its shares. */
export const holderNameAttribute = (holder: CompanyRef): string =>
  `n#${holder.country}#${holder.companyNumber}`;
/** In a company's relationships item: one company it holds shares in (written by that company's derivation). */
export const heldAttribute = (held: CompanyRef): string => `c#${held.country}#${held.companyNumber}`;
/** In a company's update feed: one update, named after its id. */
export const UPDATE_ATTRIBUTE_PREFIX = 'u#';
export const updateAttribute = (updateId: string): string => `${UPDATE_ATTRIBUTE_PREFIX}${updateId}`;

/** The company an `n#…` or `c#…` attribute names. */
export function companyOfAttribute(attribute: string): CompanyRef {
  const [, country, companyNumber] = attribute.split('#');
  return { country: country as CompanyRef['country'], companyNumber: companyNumber! };
}

const listOrderSortKey = (matchedSinceMs: number, ref: CompanyRef) =>
  `${String(LIST_ORDER_CEILING - matchedSinceMs).padStart(15, '0')}#${ref.country}#${ref.companyNumber}`;

/** List order keys count down from this (ms), so an ascending Query gives matchedSince newest first. */
export const LIST_ORDER_CEILING = 999_999_999_999_999;
/** `listOrder`'s sort key → matchedSince (ms) and the company. */
export function listOrderOfKey(sk: string): { matchedSinceMs: number; ref: CompanyRef } {
  const [inverted, country, companyNumber] = sk.split('#');
  return {
    matchedSinceMs: LIST_ORDER_CEILING - Number(inverted),
    ref: { country: country as CompanyRef['country'], companyNumber: companyNumber! },
  };
}

/** Smart-list flips are spread over this many partitions (by company number), read in parallel. */
export const SMART_FLIP_SHARDS = 16;

/** Contact-count notes are spread over this many partitions (by company number), read in parallel. */
export const CONTACTS_CHANGED_SHARDS = 16;

/** Filter profiles of a country are spread over this many partitions, read in parallel. */
export const FILTER_PROFILE_SHARDS = 8;

/** Lookalike marks are spread over this many partitions. */
export const LOOKALIKE_MARK_SHARDS = 16;

/** A company's shard of a family spread over `shards` partitions: by its number. */
function shardOf(ref: CompanyRef, shards: number): number {
  return Number(ref.companyNumber) % shards;
}

/** A shard for a text key (an import batch's change id): the sum of its character codes. */
function shardOfText(text: string, shards: number): number {
  let sum = 0;
  for (let i = 0; i < text.length; i++) sum += text.charCodeAt(i);
  return sum % shards;
}

export { companyOfKey, companyOfSearchWord, filterProfileOfKey, listOfKey } from './key-parsing';
export * from './filter-profile-keys';
