/**
 * The import engine's second step (lib/import/engine.ts): one partition of the file through the
 * import, in parallel with the others (a Distributed Map iteration); a registry's partition of units
 * through the registry import (lib/import/registry-engine.ts).
 */
import { importBucket } from '../lib/import/bucket';
import { importPartition } from '../lib/import/engine';
import { importRegistryPartition } from '../lib/import/registry-engine';
import type { RegistryFormat } from '../lib/import/sources';
import { importPartitionStorage } from '../lib/import/storage-access';
import { withDeclaredAccess } from '../lib/storage/access';

export const handler = async (event: {
  bucket: string;
  run: string;
  asOf: string;
  partition: number;
  format: 'jsonl' | RegistryFormat;
}) => {
  const files = importBucket(event.bucket);
  const { format } = event;
  const summary = await withDeclaredAccess(importPartitionStorage, async () =>
    format === 'jsonl'
      ? importPartition(files, event)
      : (await importRegistryPartition(files, { ...event, format })).summary,
  );
  return { partition: event.partition, imported: summary.imported, rejected: summary.rejected };
};
