/**
 * What the import engine's steps touch on AWS (their IAM policies are made from these, infra/stack.ts).
 * test/integration/import-engine.test.ts runs each step under its declaration.
 */
import type { StorageAccess } from '../storage/access';
import * as partitions from '../storage/partitions';

/**
 * A partition of a file through the import: the companies (read, written whole; their relationships
 * items updated by the holdings derivation), the journal of each batch (written, read back and deleted
 * on resume) and the mark of a run that ended whole (written at its end, read by later runs), the registry digests (read, conditional puts; replaced in batches by other writes), contact id claims, legal entity id claims (read, then conditional puts in transactions),
 * lookalike features and marks, the match indexes (set updates in transactions), a note for each
 * company whose number of contacts changed, the search index's words (§6.5), and for smart lists:
 * the company's filter profile and one item naming every smart list (all read in one Query) whose
 * match it changes. For events (§12): the watched lists (one partition), their list items (revision)
 * and companies, or the lists of each company with updates (gsi1), and per account its last event
 * number and what the batch wrote (read), then its events and their numbers (one transaction).
 * (ext) A company erased (§11.5.6, lib/lists/store/erasure.ts) leaves its lists: the lists it is in
 * (gsi1), each one's member with the list item (read), then member and order item deleted and the list
 * item updated in one transaction (a refused one reads the list item). The counts smart filters are
 * estimated from: per batch, transactions of at most 99 counter items moved (`ADD`) and the batch
 * part's mark put only if absent (lib/lists/store/match-counts.ts). (ext) The registry rosters: set
 * updates in the same transactions (lib/import/registry-roster.ts).
 */
export const importPartitionStorage = {
  BatchGetItem: [
    partitions.company,
    partitions.importChange,
    partitions.registryDigest,
    partitions.contactClaims,
    partitions.legalEntity,
    partitions.accountLists,
    partitions.registryLinks,
    partitions.listMembers,
  ],
  GetItem: [partitions.eventLog, partitions.accountLists],
  Query: [
    partitions.importChange,
    partitions.smartLists,
    partitions.listMemberships,
    partitions.watchedLists,
    partitions.listMembers,
    partitions.eventLog,
  ],
  // The run's import lease (lib/import/lease.ts): taken again or renewed by conditional puts.
  PutItem: [
    partitions.legalEntity,
    partitions.eventLog,
    partitions.events,
    partitions.registryDigest,
    partitions.matchCountsApplied,
    partitions.importLease,
  ],
  UpdateItem: [
    partitions.company,
    partitions.matchCounts,
    partitions.contactClaims,
    partitions.matchIndex,
    partitions.registryRoster,
    partitions.eventLog,
    partitions.accountLists,
  ],
  DeleteItem: [partitions.listMembers, partitions.listOrder],
  BatchWriteItem: [
    partitions.company,
    partitions.importChange,
    partitions.registryDigest,
    partitions.lookalikeBlock,
    partitions.lookalikeMarks,
    partitions.filterProfiles,
    partitions.smartListFlips,
    partitions.contactsChanged,
    partitions.searchWords,
    partitions.registryLinks,
  ],
} as const satisfies StorageAccess;

/**
 * (ext) The split of a registry's drop (lib/import/registry-engine.ts): a KBO extract begun or refused
 * (its progress item read, then updated: lib/import/registry-progress.ts), given up when its files are
 * not as published; what its converter asks of the stage (lib/import/registry-store.ts
 * `storedRegistryByKey`): the registry rows of the companies an update names and the links of its
 * establishments (read in batches), and for a full extract the companies KBO wrote (its roster read by
 * Query; a stage without one has it filled once from the filter profiles' partitions read by Query and
 * their company items in batches, set updates in transactions and its mark put). It writes no company.
 */
export const importSplitStorage = {
  // The run's import lease (lib/import/lease.ts): taken by a conditional put, freed when nothing follows.
  PutItem: [partitions.importLease],
  DeleteItem: [partitions.importLease],
  GetItem: [partitions.registryProgress],
  UpdateItem: [partitions.registryProgress, partitions.registryRoster],
  BatchGetItem: [partitions.company, partitions.registryLinks, partitions.registryRoster],
  Query: [partitions.filterProfiles, partitions.registryRoster],
  BatchWriteItem: [partitions.registryRoster],
} as const satisfies StorageAccess;

/**
 * The run's completion on AWS (its lookalikes are the lookalike steps' before it,
 * lib/lookalikes/fan-out.ts): the smart-list flips noted (read with the smart lists; each list's
 * item and members read, its counters moved by one update, members and order items put or deleted in
 * batches, the update released; the flips dropped), and the contact counts noted (each company's lists read
 * through gsi1 and its number from its filter profile; the lists' items and members read, a small
 * list's members by one Query; the new numbers and the list's counter in one update of its item, or member, order item and list item in
 * transactions; the notes dropped). A refused list write reads the list item to tell gone from changed.
 * (ext) A run of a numbered KBO extract then makes it the last applied: its progress item updated (read
 * when a retry of the step finds it ended already).
 */
export const importCompleteStorage = {
  Query: [
    partitions.smartListFlips,
    partitions.smartLists,
    partitions.contactsChanged,
    partitions.listMemberships,
    partitions.listMembers,
    // An account whose smart lists predate its count of their companies has them summed once.
    partitions.accountLists,
  ],
  GetItem: [partitions.accountLists, partitions.registryProgress],
  BatchGetItem: [partitions.accountLists, partitions.listMembers, partitions.filterProfiles],
  PutItem: [partitions.listMembers, partitions.listOrder],
  // The run's import lease (lib/import/lease.ts), freed after the partitions by a conditional delete.
  UpdateItem: [
    partitions.accountLists,
    partitions.listMembers,
    partitions.listOrder,
    partitions.registryProgress,
  ],
  DeleteItem: [partitions.listMembers, partitions.listOrder, partitions.importLease],
  BatchWriteItem: [
    partitions.smartListFlips,
    partitions.contactsChanged,
    partitions.listMembers,
    partitions.listOrder,
  ],
} as const satisfies StorageAccess;
