/**
 * The import engine's first step (lib/import/engine.ts): a file dropped in the import bucket, cut into
 * partitions by company. The state machine (infra/import-engine.ts) calls it with the file and the run.
 */
import { importBucket } from '../lib/import/bucket';
import { splitImportFile, type ImportRun } from '../lib/import/engine';

export const handler = (event: ImportRun & { bucket: string }) =>
  splitImportFile(importBucket(event.bucket), event).then((split) => ({ ...split, bucket: event.bucket }));
