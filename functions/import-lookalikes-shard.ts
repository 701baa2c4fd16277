/**
 * The lookalike fan-out's second step (lib/lookalikes/fan-out.ts): one shard's lists, in parallel with
 * the others (a Distributed Map iteration), under the run's lookalike lease.
 */
import { importBucket } from '../lib/import/bucket';
import { lookalikeWork } from '../lib/import/work';
import { computeLookalikeShard, lookalikeShardStorage, type LookalikeShard } from '../lib/lookalikes/fan-out';
import { withDeclaredAccess } from '../lib/storage/access';

export const handler = async (event: { bucket: string; run: string; shard: LookalikeShard }) => {
  const lists = await withDeclaredAccess(lookalikeShardStorage, () =>
    computeLookalikeShard(importBucket(event.bucket), {
      dir: lookalikeWork(event.run),
      shard: event.shard,
      holder: event.run,
    }),
  );
  return { ...event.shard, lists };
};
