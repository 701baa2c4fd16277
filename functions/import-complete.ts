/**
 * The import engine's last step (lib/import/engine.ts): the run's completion (the lookalikes of the
 * changed companies), then its report in the bucket and its summary line in the log. Asked only to
 * (`releaseImportLease`, the state after the partitions), it frees the run's import lease instead
 * (lib/import/lease.ts): what follows the partitions writes no company.
 */
import { importBucket } from '../lib/import/bucket';
import { completeImportRun, type ImportRun } from '../lib/import/engine';
import { releaseImportRunLease } from '../lib/import/lease';
import { importCompleteStorage } from '../lib/import/storage-access';
import { withDeclaredAccess } from '../lib/storage/access';

export const handler = async (
  event: (ImportRun & { bucket: string; partitions: number[] }) | { run: string; releaseImportLease: true },
) => {
  if ('releaseImportLease' in event) {
    await withDeclaredAccess(importCompleteStorage, () => releaseImportRunLease(event.run));
    return { released: true };
  }
  const { reportKey, summary, text } = await withDeclaredAccess(importCompleteStorage, () =>
    completeImportRun(importBucket(event.bucket), event),
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
