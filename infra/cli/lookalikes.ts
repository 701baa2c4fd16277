/**
 * `npm run lookalikes [-- --table NAME] [--rebuild-features]`: recomputes every company's lookalikes
 * (contract §6.3) from the features the import stored, section by section, in one process — the same
 * plan and computation as the stack's lookalike state machine, which fans them out over workers
 * (lib/lookalikes/fan-out.ts). Default: the local stage (see infra/cli/stage.ts).
 * `--rebuild-features` first writes the features again from the stored companies (a Scan): for a table
 * whose companies were imported before lookalikes existed. While another recompute holds the lookalike
 * lease (an import's completion, the stack's job) it waits for it, saying for whom (lib/lookalikes/lease.ts).
 * Stopped by Ctrl-C or SIGTERM it frees the lease if it holds it, then ends as the signal ends it.
 */
import { parseArgs } from 'node:util';
import { cleanUpOnSignal } from './signals';
import { useStage } from './stage';

let stageInUse = '';

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      table: { type: 'string' },
      'rebuild-features': { type: 'boolean' },
      help: { type: 'boolean' },
    },
  });
  if (values.help) {
    console.error('usage: npm run lookalikes -- [--table NAME] [--rebuild-features]');
    return 2;
  }
  const stage = useStage(values.table);
  stageInUse = stage;
  // Loaded after the stage is chosen: the storage client reads the environment when first used.
  const { recomputeAll } = await import('../../lib/lookalikes/recompute');
  const { releaseLeasesHeldHere } = await import('../../lib/lookalikes/lease');
  cleanUpOnSignal(async (signal) => {
    console.error(`lookalikes stopped by ${signal} (${stage}): run it again to recompute them all.`);
    await releaseLeasesHeldHere();
  });
  console.error(`recomputing lookalikes in ${stage}`);
  const { blocks, companies, seconds, rounds } = await recomputeAll({
    rebuildFeatures: values['rebuild-features'] ?? false,
  });
  console.log(
    `recomputed the lookalikes of ${companies} companies in ${blocks} blocks, in ${seconds.toFixed(1)} s` +
      (rounds > 1 ? ` (${rounds} rounds: marks written meanwhile)` : ''),
  );
  return 0;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(
      `lookalikes stopped: ${error instanceof Error ? `${error.name}: ${error.message}` : String(error)} (${stageInUse}).`,
    );
    process.exit(2);
  },
);
