/**
 * The full lookalike recompute job (contract §6.3) on AWS; `npm run lookalikes` runs the same locally.
 * Invoked with `{}`, or `{"rebuildFeatures": true}` for a table imported before lookalikes existed.
 */
import { recomputeAll } from '../lib/lookalikes/recompute';

export const handler = async (event: { rebuildFeatures?: boolean } | null) => {
  const summary = await recomputeAll({ rebuildFeatures: event?.rebuildFeatures === true });
  console.log(JSON.stringify({ level: 'INFO', message: 'lookalikes recomputed', ...summary }));
  return summary;
};
