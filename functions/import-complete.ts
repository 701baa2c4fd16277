/**
 * The import engine's last step (lib/import/engine.ts): the run's completion (the lookalikes of the
 * changed companies), then its report in the bucket and its summary line in the log. It renews the
 * run's import lease while it runs and frees it at its end (lib/import/lease.ts; held by another run:
 * ImportLeaseHeld, and the state machine retries).
 */
import { importBucket } from '../lib/import/bucket';
import { completeImportRun, type ImportRun } from '../lib/import/engine';
import { importRunStep } from '../lib/import/lease';
import { importCompleteStorage } from '../lib/import/storage-access';
import { withDeclaredAccess } from '../lib/storage/access';

export const handler = async (event: ImportRun & { bucket: string; partitions: number[] }) => {
  const { reportKey, summary, text } = await withDeclaredAccess(importCompleteStorage, () =>
    importRunStep(event.run, () => completeImportRun(importBucket(event.bucket), event), { release: true }),
  );
  const summaryLine = text.slice(text.lastIndexOf('\n') + 1);
  console.log(
    JSON.stringify({
      level: 'INFO',
      message: 'import finished',
      file: event.key,
      reportKey,
      summary: summaryLine,
    }),
  );
  return { reportKey, ...summary };
};
