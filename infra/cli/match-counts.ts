/**
 * `npm run match-counts [-- --table NAME] [--country BE|NL|FR ...]`: recounts the match counts smart
 * filters are estimated from (contract §7.6) from the stored filter profiles, and writes every
 * profile's entries (by NACE code, place and the figures in their tails, from which smart filters read
 * their candidates; it prints each country's tail sizes at the end, and the codes and places too broad
 * for a request to read unsieved), country
 * by country, in turns of at most 10,000 items (lib/lists/match-recount.ts): for a stage whose
 * companies were imported before the counts or entries existed, or counts that drifted. Idempotent: stopped at any point, run it
 * again and it goes on where it stood; run on right counts, it leaves them as they are. Run it while no
 * import runs (an import's moves of a country's counts during its recount may be overwritten).
 * Default: the local stage (see infra/cli/stage.ts).
 */
import { parseArgs } from 'node:util';
import { COUNTRIES, parseCountry, type Country } from '../../lib/companies/identifiers';
import { useStage } from './stage';

let stageInUse = '';
/** The broadest codes and places printed per country. */
const BROAD_SHOWN = 20;

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      table: { type: 'string' },
      country: { type: 'string', multiple: true },
      help: { type: 'boolean' },
    },
  });
  const countries = (values.country ?? [...COUNTRIES]).map(parseCountry);
  if (values.help || countries.some((c) => c === null)) {
    console.error(`usage: npm run match-counts -- [--table NAME] [--country ${COUNTRIES.join('|')} ...]`);
    return 2;
  }
  const stage = useStage(values.table);
  stageInUse = stage;
  // Loaded after the stage is chosen: the storage client reads the environment when first used.
  const { broadSets, recountMatchCounts, tailSizes } = await import('../../lib/lists/match-recount');
  const { readAtOnce, scanAtOnce } = await import('../../lib/lists/smart-bounds');
  const { RANGE_TAILS } = await import('../../lib/lists/range-entries');
  console.error(`recounting the match counts of ${countries.join(', ')} in ${stage}`);
  const started = Date.now();
  const done = await recountMatchCounts(countries as Country[], {
    onTurn: ({ country, phase, turn }) => console.error(`${country}: turn ${turn}, ${phase}`),
  });
  for (const { country, turns } of done) console.log(`${country}: match counts recounted in ${turns} turns`);
  // The range entries' tails as the counts see them: a tail far past 40,000 companies is never read
  // whole by a request (docs/decisions.md, "Range entries cover the tails").
  for (const { country, tails } of await tailSizes(countries as Country[]))
    console.log(
      `${country}: range entries for ${tails.employees} companies with employees >= ${RANGE_TAILS.employees}, ` +
        `${tails.totalAssets} with total assets >= ${RANGE_TAILS.totalAssets}`,
    );
  // The codes and places a request reads only sieved by another criterion (docs/decisions.md, "Broad
  // together, narrow together"): a code × place both listed whose smaller passes the sieved bound
  // is left to the worker.
  for (const { country, broad } of await broadSets(countries as Country[]))
    console.log(
      `${country}: ${broad.length} codes and places over ${readAtOnce()} companies, read only sieved ` +
        `(whole up to ${scanAtOnce()})${broad.length ? ': ' : ''}` +
        broad
          .slice(0, BROAD_SHOWN)
          .map(({ kind, value, companies }) => `${kind} ${value} ${companies}`)
          .join(', ') +
        (broad.length > BROAD_SHOWN ? ', …' : ''),
    );
  console.log(`done in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return 0;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(
      `match-counts stopped: ${error instanceof Error ? `${error.name}: ${error.message}` : String(error)} (${stageInUse}); run it again to go on.`,
    );
    process.exit(2);
  },
);
