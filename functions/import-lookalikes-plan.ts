/**
 * The lookalike fan-out's first step (lib/lookalikes/fan-out.ts), in both state machines
 * (infra/import-engine.ts): `marked` after an import's partitions, `all` for the full job. Answers the
 * shards for the Distributed Map.
 */
import { importBucket } from '../lib/import/bucket';
import { lookalikeWork } from '../lib/import/work';
import { lookalikePlanStorage, planLookalikes } from '../lib/lookalikes/fan-out';
import { withDeclaredAccess } from '../lib/storage/access';

export const handler = async (event: { bucket: string; run: string; mode: 'marked' | 'all' }) => {
  if (event.mode !== 'marked' && event.mode !== 'all') throw new Error(`unknown mode ${String(event.mode)}`);
  const plan = await withDeclaredAccess(lookalikePlanStorage, () =>
    planLookalikes(importBucket(event.bucket), { dir: lookalikeWork(event.run), mode: event.mode }),
  );
  const { shards, ...figures } = plan;
  console.log(
    JSON.stringify({
      level: 'INFO',
      message: 'lookalikes planned',
      run: event.run,
      shards: shards.length,
      ...figures,
    }),
  );
  return plan;
};
