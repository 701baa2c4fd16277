/**
 * The lookalike fan-out's first step (lib/lookalikes/fan-out.ts), in both state machines
 * (infra/import-engine.ts): `marked` after an import's partitions, `all` for the full job; `round` past
 * the first after a finish found marks left. Answers the shards for the Distributed Map, or that it did
 * not plan (nothing marked, or the lookalike lease held by another run).
 */
import { importBucket } from '../lib/import/bucket';
import { lookalikeWork } from '../lib/import/work';
import { lookalikePlanStorage, planLookalikes } from '../lib/lookalikes/fan-out';
import { withDeclaredAccess } from '../lib/storage/access';

export const handler = async (event: {
  bucket: string;
  run: string;
  mode: 'marked' | 'all';
  round: number;
}) => {
  if (event.mode !== 'marked' && event.mode !== 'all') throw new Error(`unknown mode ${String(event.mode)}`);
  const plan = await withDeclaredAccess(lookalikePlanStorage, () =>
    planLookalikes(importBucket(event.bucket), {
      dir: lookalikeWork(event.run),
      mode: event.mode,
      holder: event.run,
      round: event.round,
    }),
  );
  const { shards, ...figures } = plan;
  console.log(
    JSON.stringify({
      level: 'INFO',
      message: plan.heldBy ? 'lookalike lease held' : 'lookalikes planned',
      run: event.run,
      shards: shards.length,
      ...figures,
    }),
  );
  return plan;
};
