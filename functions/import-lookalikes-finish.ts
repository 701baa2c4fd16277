/**
 * The lookalike fan-out's last step (lib/lookalikes/fan-out.ts), in both state machines: the marks its
 * plan read are done, its work files go, the lookalike lease is released; `again` when marks written
 * meanwhile send the run round again (the state machine goes back to the plan).
 */
import { importBucket } from '../lib/import/bucket';
import { lookalikeWork } from '../lib/import/work';
import { finishLookalikes, lookalikeFinishStorage } from '../lib/lookalikes/fan-out';
import { withDeclaredAccess } from '../lib/storage/access';

export const handler = async (event: { bucket: string; run: string; round: number }) => {
  const finish = await withDeclaredAccess(lookalikeFinishStorage, () =>
    finishLookalikes(importBucket(event.bucket), {
      dir: lookalikeWork(event.run),
      holder: event.run,
      round: event.round,
    }),
  );
  console.log(
    JSON.stringify({
      level: finish.marksLeft ? 'WARN' : 'INFO',
      message: finish.again
        ? 'lookalikes recomputed; marks left, another round'
        : finish.marksLeft
          ? 'lookalikes recomputed; marks left to the next recompute'
          : 'lookalikes recomputed',
      run: event.run,
      ...finish,
    }),
  );
  return finish;
};
