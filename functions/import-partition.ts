/**
 * The import engine's second step (lib/import/engine.ts): one partition of the file through the
 * import, in parallel with the others (a Distributed Map iteration); a registry's partition of units
 * through the registry import (lib/import/registry-engine.ts), or of filings through the filing import
 * (lib/filings/engine.ts). It renews the run's import lease while it runs (lib/import/lease.ts; held by
 * another run: ImportLeaseHeld, nothing written, and the state machine retries).
 */
import { importFilingPartition } from '../lib/filings/engine';
import { FILING_FORMATS, type FilingFormat } from '../lib/filings/sources';
import { importBucket } from '../lib/import/bucket';
import { importPartition } from '../lib/import/engine';
import { importRunStep } from '../lib/import/lease';
import { importRegistryPartition } from '../lib/import/registry-engine';
import type { RegistryFormat } from '../lib/import/sources';
import { importPartitionStorage } from '../lib/import/storage-access';
import { withDeclaredAccess } from '../lib/storage/access';

export const handler = async (event: {
  bucket: string;
  run: string;
  asOf: string;
  partition: number;
  format: 'jsonl' | RegistryFormat | FilingFormat;
}) => {
  const files = importBucket(event.bucket);
  const { format } = event;
  const summary = await withDeclaredAccess(importPartitionStorage, () =>
    importRunStep(event.run, async () => {
      if (format === 'jsonl') return importPartition(files, event);
      if ((FILING_FORMATS as readonly string[]).includes(format))
        return (await importFilingPartition(files, { ...event, format: format as FilingFormat })).summary;
      return (await importRegistryPartition(files, { ...event, format: format as RegistryFormat })).summary;
    }),
  );
  return { partition: event.partition, imported: summary.imported, rejected: summary.rejected };
};
