/**
 * Recounting the match counts (match-estimate.ts) from the stored filter profiles: for a stage whose
 * profiles predate the counts, or counts that drifted (a batch applied by hand, a bug since fixed).
 * The import keeps them by moving them per batch; this rebuilds them whole, per country, in turns of
 * at most `limit` items each (store/match-recount.ts):
 *
 * 1. count: a page of the country's filter profiles from the cursor, their contributions summed and
 *    added into the recount's own counts (marked per turn, so a turn taken again adds nothing twice),
 *    and each profile's entries (store/profiles.ts) put, as the import writes them; the last page adds
 *    `INDEX` (`ready`; `ranges`: the version of the range tails, range-entries.ts; `figures`: the
 *    version of the entries' numbers, sieve.ts), which says the country's entries are whole
 *    (smart-candidates.ts reads them then);
 * 2. prune: a page of the country's counts, those the recount found no company for deleted;
 * 3. copy: a page of the rebuilt counts put in place of the country's, whole.
 *
 * A turn cut off is taken again by the next (the recount's item says where it stands), so running it
 * again after a crash finishes it, and running it on counts that are right leaves them as they are.
 * Counts an import moves while a recount of that country runs may be overwritten by it, and an entry
 * of a profile the import changes meanwhile put back as it was: recount while no import runs
 * (docs/import.md, "Match counts").
 */
import { randomUUID } from 'node:crypto';
import { COUNTRIES, type Country } from '../companies/identifiers';
import { unpackProfile } from './filters';
import {
  activityItem,
  addCounts,
  ALL,
  contributionOf,
  inBandsOf,
  INDEX,
  placeItem,
  type Counts,
} from './match-estimate';
import { readAtOnce } from './smart-bounds';
import { RANGE_ENTRIES_VERSION, RANGE_FIGURES, RANGE_TAILS, type RangeFigure } from './range-entries';
import { FIGURE_ENTRIES_VERSION } from './sieve';
import { moveMatchCounts, readCountsOf, readMatchCounts } from './store/match-counts';
import {
  copyCounts,
  endRecountTurn,
  getRecount,
  pruneCounts,
  rebuildOf,
  startRecount,
  type Recount,
} from './store/match-recount';
import type { Item } from './store/model';
import { profileEntryItems, readProfilesFrom } from './store/profiles';
import { batchPut } from '../storage/batch';
import { tableName } from '../storage/client';

/** Items one turn reads: profiles counted, counts pruned or copied. */
export const RECOUNT_TURN = 10_000;

/**
 * One turn of the country's recount, started when none is under way. Answers where it stands after
 * the turn: null once the country's counts are the rebuilt ones.
 */
export async function recountTurn(country: Country, limit = RECOUNT_TURN): Promise<Recount | null> {
  const recount = (await getRecount(country)) ?? (await begin(country));
  const { phase, cursor } = recount;
  if (phase === 'count') {
    const { profiles, next } = await readProfilesFrom(
      [country],
      { shard: cursor?.shard ?? 0, ...(cursor?.key ? { key: cursor.key } : {}) },
      limit,
    );
    const counts: Counts = new Map();
    const entries: Item[] = [];
    for (const { ref, packed, contacts } of profiles) {
      const profile = unpackProfile(country, packed);
      addCounts(counts, contributionOf(profile), 1);
      entries.push(...profileEntryItems(ref, profile, packed, contacts));
    }
    await batchPut(tableName(), entries);
    // The country's entries are whole: by code and place, by the range tails of this version, each
    // with the numbers of its figures (sieve.ts).
    if (!next)
      counts.set(
        INDEX,
        new Map([
          ['ready', 1],
          ['ranges', RANGE_ENTRIES_VERSION],
          ['figures', FIGURE_ENTRIES_VERSION],
        ]),
      );
    if (counts.size > 0)
      await moveMatchCounts(`recount#${recount.run}#${recount.turn}`, new Map([[country, counts]]), () =>
        rebuildOf(recount),
      );
    await endRecountTurn(recount, next ? { phase, cursor: next } : { phase: 'prune' });
  } else if (phase === 'prune') {
    const { next } = await pruneCounts(recount, cursor?.key, limit);
    await endRecountTurn(recount, next ? { phase, cursor: { key: next } } : { phase: 'copy' });
  } else {
    const { done } = await copyCounts(recount, limit);
    await endRecountTurn(recount, done ? null : { phase });
  }
  return getRecount(country);
}

async function begin(country: Country): Promise<Recount> {
  await startRecount(country, randomUUID());
  // Another operator's start may have got there first: that one goes on.
  return (await getRecount(country))!;
}

/** Every turn of these countries' recounts, one country after the other; the turns each took. */
export async function recountMatchCounts(
  countries: readonly Country[] = COUNTRIES,
  { limit = RECOUNT_TURN, onTurn }: { limit?: number; onTurn?: (recount: Recount) => void } = {},
): Promise<{ country: Country; turns: number }[]> {
  const done: { country: Country; turns: number }[] = [];
  for (const country of countries) {
    let turns = 0;
    for (let recount = await recountTurn(country, limit); ; recount = await recountTurn(country, limit)) {
      turns++;
      if (!recount) break;
      onTurn?.(recount);
    }
    done.push({ country, turns });
  }
  return done;
}

/**
 * How many of each country's companies have range entries, per figure (its tail, range-entries.ts),
 * from the counts: what an operator checks the tails against (a request reads at most 40,000).
 */
export async function tailSizes(
  countries: readonly Country[],
): Promise<{ country: Country; tails: Record<RangeFigure, number> }[]> {
  const counts = await readMatchCounts(countries.map((country) => ({ country, sk: ALL })));
  return countries.map((country) => ({
    country,
    tails: Object.fromEntries(
      RANGE_FIGURES.map((figure) => [
        figure,
        inBandsOf(counts.get(`${country}|${ALL}`), figure, { min: RANGE_TAILS[figure] }),
      ]),
    ) as Record<RangeFigure, number>,
  }));
}

/** A code or place whose companies are too many for a request to read their entries unsieved. */
export interface BroadSet {
  kind: 'code' | 'place';
  /** The NACE code (2 to 5 digits) or the place key. */
  value: string;
  companies: number;
}

/**
 * Each country's codes and places whose entries pass what a request reads whole (`readAtOnce()`,
 * smart-bounds.ts), largest first: a filter on one of them alone is left to the worker, and one on a
 * code and a place both in this list is whole in the request only when the smaller passes no more
 * than `scanAtOnce()` (it is read sieved by the other). What an operator checks the sieve against
 * (docs/decisions.md, "Broad together, narrow together").
 */
export async function broadSets(
  countries: readonly Country[],
): Promise<{ country: Country; broad: BroadSet[] }[]> {
  const bound = readAtOnce();
  return Promise.all(
    countries.map(async (country) => {
      const broad: BroadSet[] = [];
      for (const [sk, attributes] of await readCountsOf(country)) {
        if (sk.startsWith(placeItem(''))) {
          const companies = attributes.get('n') ?? 0;
          if (companies > bound)
            broad.push({ kind: 'place', value: sk.slice(placeItem('').length), companies });
        } else if (sk.startsWith(activityItem('')))
          for (const [name, companies] of attributes)
            if (name.startsWith('c') && companies > bound)
              broad.push({ kind: 'code', value: name.slice(1), companies });
      }
      broad.sort((a, b) => b.companies - a.companies || a.value.localeCompare(b.value));
      return { country, broad };
    }),
  );
}
