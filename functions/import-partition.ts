/**
 * The import engine's second step (lib/import/engine.ts): one partition of the file through the
 * import, in parallel with the others (a Distributed Map iteration).
 */
import { importBucket } from '../lib/import/bucket';
import { importPartition } from '../lib/import/engine';
import { importPartitionStorage } from '../lib/import/storage-access';
import { withDeclaredAccess } from '../lib/storage/access';

export const handler = async (event: { bucket: string; run: string; asOf: string; partition: number }) => {
  const summary = await withDeclaredAccess(importPartitionStorage, () =>
    importPartition(importBucket(event.bucket), event),
  );
  return { partition: event.partition, imported: summary.imported, rejected: summary.rejected };
};
