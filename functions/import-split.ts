/**
 * The import engine's first step (lib/import/engine.ts): a file dropped in the import bucket, cut into
 * partitions by company; a registry's files (under `kbo/` or `sirene/`) converted and cut into
 * partitions of units (lib/import/registry-engine.ts): KBO at once, SIRENE planned by `siren` range,
 * each range split, then gathered; or asked again later while a SIRENE units file waits for its
 * establishments file; filings (under `filings/cbso/` or `filings/inpi-ratios/`) converted, sorted by
 * company and cut into partitions (lib/filings/engine.ts). The state machine (infra/import-engine.ts) calls it with the file and the run.
 *
 * The run's first step: it takes the stage's import lease in the run's name before it reads anything
 * (lib/import/lease.ts; held by another run: ImportLeaseHeld, which the state machine retries), and
 * frees it when there is nothing to import or the run waits for a pair's second file.
 */
import { filingFormatOf, splitFilingDrop, type FilingSplit } from '../lib/filings/engine';
import { importBucket } from '../lib/import/bucket';
import { importRunStep, splitFreesLease } from '../lib/import/lease';
import { splitImportFile } from '../lib/import/engine';
import {
  registryDropOf,
  splitRegistryDrop,
  type RegistrySplit,
  type RegistrySplitInput,
} from '../lib/import/registry-engine';
import { importSplitStorage } from '../lib/import/storage-access';
import { withDeclaredAccess } from '../lib/storage/access';

/** It writes no company: a KBO extract's progress, and what its converter reads of the stage. */
export const handler = (event: RegistrySplitInput & { bucket: string }) =>
  withDeclaredAccess(importSplitStorage, () =>
    importRunStep(
      event.run,
      (): Promise<RegistrySplit | FilingSplit> => {
        const files = importBucket(event.bucket);
        if (filingFormatOf(event.key)) return splitFilingDrop(files, event);
        return registryDropOf(event.key) ? splitRegistryDrop(files, event) : splitImportFile(files, event);
      },
      { release: splitFreesLease },
    ),
  ).then((split) => ({ ...split, bucket: event.bucket }));
