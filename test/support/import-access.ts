/**
 * The import as the engine's workers run it on AWS: every storage call checked against what the
 * partition, lookalike and completion steps declare (lib/import/storage-access.ts,
 * lib/lookalikes/fan-out.ts: the import's completion in one process does the lookalike steps' work),
 * so a derivation that starts touching something new fails here before its IAM policy would refuse it
 * there.
 */
import { importCompleteStorage, importPartitionStorage } from '../../lib/import/storage-access';
import {
  lookalikeFinishStorage,
  lookalikePlanStorage,
  lookalikeShardStorage,
} from '../../lib/lookalikes/fan-out';
import { withDeclaredAccess, type StorageAccess, type StorageAction } from '../../lib/storage/access';

const all: StorageAccess = {};
for (const declaration of [
  importPartitionStorage,
  lookalikePlanStorage,
  lookalikeShardStorage,
  lookalikeFinishStorage,
  importCompleteStorage,
] as StorageAccess[]) {
  for (const [action, partitions] of Object.entries(declaration) as [
    StorageAction,
    StorageAccess[StorageAction],
  ][]) {
    all[action] = [...(all[action] ?? []), ...(partitions ?? [])];
  }
}

export const asImportWorkers = <T>(run: () => Promise<T>): Promise<T> => withDeclaredAccess(all, run);
