/**
 * The full lookalike recompute job (contract §6.3) on AWS; `npm run lookalikes` runs the same locally.
 * Invoked with `{}`. Rebuilding the features from the company items needs a Scan of the whole table,
 * which this function may not make: `npm run lookalikes -- --rebuild-features --table <TableName>`.
 */
import { recomputeAll, recomputeAllStorage } from '../lib/lookalikes/recompute';
import { withDeclaredAccess } from '../lib/storage/access';

export const handler = async (event: { rebuildFeatures?: boolean } | null) => {
  if (event?.rebuildFeatures === true) {
    throw new Error(
      'rebuildFeatures scans the whole table, which this function may not do: run ' +
        '`npm run lookalikes -- --rebuild-features --table <TableName>` with operator credentials',
    );
  }
  const summary = await withDeclaredAccess(recomputeAllStorage, () => recomputeAll());
  console.log(JSON.stringify({ level: 'INFO', message: 'lookalikes recomputed', ...summary }));
  return summary;
};
