/**
 * The import engine's first step (lib/import/engine.ts): a file dropped in the import bucket, cut into
 * partitions by company. The state machine (infra/import-engine.ts) calls it with the file and the run.
 */
import { importBucket } from '../lib/import/bucket';
import { splitImportFile, type ImportRun } from '../lib/import/engine';
import { withDeclaredAccess } from '../lib/storage/access';

/** It never touches the table: any storage call fails, as its IAM policy (none) would refuse it. */
export const handler = (event: ImportRun & { bucket: string }) =>
  withDeclaredAccess({}, () => splitImportFile(importBucket(event.bucket), event)).then((split) => ({
    ...split,
    bucket: event.bucket,
  }));
