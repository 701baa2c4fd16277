/**
 * `npm run lookalikes [-- --table NAME] [--rebuild-features]`: recomputes every company's lookalikes
 * (contract §6.3) from the features the import stored, section by section, in one process — the same
 * plan and computation as the stack's lookalike state machine, which fans them out over workers
 * (lib/lookalikes/fan-out.ts). Default: the local stage (see infra/cli/stage.ts).
 * `--rebuild-features` first writes the features again from the stored companies (a Scan): for a table
 * whose companies were imported before lookalikes existed.
 */
import { parseArgs } from 'node:util';
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
  console.error(`recomputing lookalikes in ${stage}`);
  const { blocks, companies, seconds } = await recomputeAll({
    rebuildFeatures: values['rebuild-features'] ?? false,
  });
  console.log(
    `recomputed the lookalikes of ${companies} companies in ${blocks} blocks, in ${seconds.toFixed(1)} s`,
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
