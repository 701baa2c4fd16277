/**
 * `npm run notifications -- backfill [--table NAME]`: files every STATIC list with notifications on
 * in the watched lists' index the import reads (lib/events/backfill.ts) — once per stage whose lists
 * predate that index; run again, it changes nothing. Default: the local stage (infra/cli/stage.ts);
 * with `--table`, a deployed stage's table with the operator's AWS credentials (it Scans the table).
 */
import { parseArgs } from 'node:util';
import { useStage } from './stage';

let stageInUse = '';

async function main(): Promise<number> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: { table: { type: 'string' }, help: { type: 'boolean' } },
  });
  if (values.help || positionals.join(' ') !== 'backfill') {
    console.error('usage: npm run notifications -- backfill [--table NAME]');
    return 2;
  }
  stageInUse = useStage(values.table);
  // Loaded after the stage is chosen: the storage client reads the environment when first used.
  const { backfillWatchedLists } = await import('../../lib/events/backfill');
  console.error(`backfilling the watched lists in ${stageInUse}`);
  const { watched, added } = await backfillWatchedLists();
  console.log(`${watched} lists with notifications on, ${added} of them filed now (the others were)`);
  return 0;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(
      `notifications stopped: ${error instanceof Error ? `${error.name}: ${error.message}` : String(error)} (${stageInUse}).`,
    );
    process.exit(2);
  },
);
