/**
 * The full lookalike job's last step (lib/lookalikes/fan-out.ts): the marks its plan read are done, its
 * work files go. (The import's last step, functions/import-complete.ts, does the same for its run.)
 */
import { importBucket } from '../lib/import/bucket';
import { lookalikeWork } from '../lib/import/work';
import { finishLookalikes, lookalikeFinishStorage } from '../lib/lookalikes/fan-out';
import { withDeclaredAccess } from '../lib/storage/access';

export const handler = async (event: { bucket: string; run: string }) => {
  const marks = await withDeclaredAccess(lookalikeFinishStorage, () =>
    finishLookalikes(importBucket(event.bucket), { dir: lookalikeWork(event.run) }),
  );
  console.log(JSON.stringify({ level: 'INFO', message: 'lookalikes recomputed', run: event.run, marks }));
  return { marks };
};
