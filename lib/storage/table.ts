/**
 * The one table definition. The CDK stack, the local stage, the token CLI and the tests all build
 * their table from this; the storage adapter (lib/storage) reads the key and index names from here.
 * Pure data: importing it pulls in no AWS library.
 */
export const tableDefinition = {
  partitionKey: 'pk',
  sortKey: 'sk',
  /** Generic secondary index; what it holds per entity is listed in lib/storage/store.ts. */
  indexes: [{ name: 'gsi1', partitionKey: 'gsi1pk', sortKey: 'gsi1sk' }],
  /** Epoch seconds; items carrying it (idempotency records, say) expire by themselves. */
  timeToLiveAttribute: 'ttl',
} as const;

export type TableIndexName = (typeof tableDefinition.indexes)[number]['name'];

/** The table name a stage uses when none is injected (local stage, token CLI defaults). */
export const LOCAL_TABLE_NAME = 'company-data-local';
