/**
 * The import as the engine's workers run it on AWS: every storage call checked against what the
 * partition and completion steps declare (lib/import/storage-access.ts), so a derivation that starts
 * touching something new fails here before its IAM policy would refuse it there.
 */
import { importCompleteStorage, importPartitionStorage } from '../../lib/import/storage-access';
import { withDeclaredAccess, type StorageAccess, type StorageAction } from '../../lib/storage/access';

const both: StorageAccess = {};
for (const declaration of [importPartitionStorage, importCompleteStorage] as StorageAccess[]) {
  for (const [action, partitions] of Object.entries(declaration) as [
    StorageAction,
    StorageAccess[StorageAction],
  ][]) {
    both[action] = [...(both[action] ?? []), ...(partitions ?? [])];
  }
}

export const asImportWorkers = <T>(run: () => Promise<T>): Promise<T> => withDeclaredAccess(both, run);
