/**
 * What the smart-list tests share: callers of other accounts, the list endpoints called with real REST
 * proxy events, filter profiles as the import keeps them (with their match counts, recounted from
 * them), the smart lists' bounds lowered through their configuration for a describe block, and what
 * the evaluation tests read back: profile reads counted, a list's members, a full evaluation, the worker
 * run to its end.
 */
import { handler as createList } from '../../functions/create-list';
import { handler as evaluateSmartLists } from '../../functions/evaluate-smart-lists';
import { handler as deleteList } from '../../functions/delete-list';
import { handler as getList } from '../../functions/get-list';
import { handler as updateList } from '../../functions/update-list';
import { belgianCheckDigits, luhnCheckDigit, type Country } from '../../lib/companies/identifiers';
import {
  matchesFilters,
  packProfile,
  placeKey,
  unpackProfile,
  type FilterProfile,
  type Filters,
} from '../../lib/lists/filters';
import { codesOf } from '../../lib/lists/match-estimate';
import { recountMatchCounts } from '../../lib/lists/match-recount';
import { RANGE_FIGURES, RANGE_TAILS, type RangeFigure } from '../../lib/lists/range-entries';
import { SIEVED_FIGURES } from '../../lib/lists/sieve';
import { readAtOnce, scanAtOnce } from '../../lib/lists/smart-bounds';
import { filterProfileItem, readProfilesFrom } from '../../lib/lists/store/profiles';
import { batchPut, queryAll } from '../../lib/storage/batch';
import { tableName } from '../../lib/storage/client';
import * as keys from '../../lib/storage/keys';
import { SCOPES } from '../../lib/tokens/scopes';
import type { Caller } from '../../lib/tokens/caller';
import type { Call } from './dynamodb-calls';
import { call } from './events';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Body = any;
export type Answer = { status: number; body: Body };

/** A caller of `accountId` with every scope. */
export const callerOf = (accountId: string): Caller => ({
  accountId,
  userEmail: `ops@${accountId}.example`,
  scopes: [...SCOPES],
});

/** `POST /v1/lists`. */
export const postList = async (caller: Caller, body: unknown) =>
  (await call(createList, { method: 'POST', resource: '/v1/lists', body, caller })) as Answer;

/** `PATCH /v1/lists/{id}`. */
export const patchList = async (caller: Caller, id: number, body: unknown) =>
  (await call(updateList, {
    method: 'PATCH',
    resource: '/v1/lists/{id}',
    pathParameters: { id: String(id) },
    body,
    caller,
  })) as Answer;

/** `GET /v1/lists/{id}`. */
export const getOne = async (caller: Caller, id: number) =>
  (await call(getList, {
    resource: '/v1/lists/{id}',
    pathParameters: { id: String(id) },
    caller,
  })) as Answer;

/** `DELETE /v1/lists/{id}`. */
export const deleteOne = async (caller: Caller, id: number) =>
  (await call(deleteList, {
    method: 'DELETE',
    resource: '/v1/lists/{id}',
    pathParameters: { id: String(id) },
    caller,
  })) as Answer;

/** A valid company number of `country` (§3) from a running number below 100,000,000. */
export function numberOf(country: Country, n: number): string {
  const body = String(n).padStart(8, '0');
  if (country === 'NL') return body;
  return country === 'FR' ? body + luhnCheckDigit(body) : body + belgianCheckDigits(body);
}

/**
 * Filter profiles as the import keeps them: companies numbered from `from` in `country`, each with
 * these NACE codes (and `profile`'s other facts); then the country's match counts recounted from every
 * profile stored, and the profiles' entries written, as the operator's command does.
 */
export async function putProfiles(
  country: Country,
  from: number,
  count: number,
  activities: string[],
  profile: Partial<FilterProfile> = {},
) {
  const packed = packProfile({
    country,
    activities,
    place: null,
    employees: null,
    totalAssets: null,
    healthIndicator: null,
    ...profile,
  });
  await batchPut(
    tableName(),
    Array.from({ length: count }, (_, n) =>
      filterProfileItem({ country, companyNumber: numberOf(country, from + n) }, packed, 1),
    ),
    8,
  );
  await recountMatchCounts([country]);
}

/** These environment variables set for the describe block (or file) it is called in, restored after. */
export function withEnv(values: Record<string, string>) {
  const before = Object.fromEntries(Object.keys(values).map((k) => [k, process.env[k]]));
  beforeAll(() => Object.assign(process.env, values));
  afterAll(() => {
    for (const [k, v] of Object.entries(before)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  });
}

/** Items the calls read of filter profiles and their entries (Query items evaluated, BatchGetItem items answered). */
export const profilesRead = (calls: Call[]) =>
  calls.filter((c) => JSON.stringify(c.input).includes('FILTER_PROFILES#')).reduce((n, c) => n + c.items, 0);

/** Entries of filter profiles the calls sent back (a sieved Query's that passed its FilterExpression). */
export const profilesAnswered = (calls: Call[]) =>
  calls
    .filter((c) => JSON.stringify(c.input).includes('FILTER_PROFILES#'))
    .reduce((n, c) => n + c.answered, 0);

/** The companies of the list, every state, as `<country>#<number>`. */
export async function membersOf(accountId: string, listId: number): Promise<string[]> {
  const items = await queryAll({
    TableName: tableName(),
    KeyConditionExpression: 'pk = :pk',
    ExpressionAttributeValues: { ':pk': keys.listPartitions(accountId, listId, [])[0] },
    ConsistentRead: true,
  });
  return items.map((item) => (item['sk'] as string).replace(/^COMPANY#/, '')).sort();
}

/** What an evaluation of every stored profile gives: the companies that match, as `<country>#<number>`. */
export async function everyMatch(filters: Filters): Promise<string[]> {
  const { profiles } = await readProfilesFrom(filters.countries ?? ['BE', 'NL', 'FR'], { shard: 0 }, 100_000);
  return profiles
    .filter((p) => matchesFilters(filters, unpackProfile(p.ref.country, p.packed)))
    .map((p) => `${p.ref.country}#${p.ref.companyNumber}`)
    .sort();
}

/** Runs the smart-list worker until no job is left (at most `runs` runs). */
export async function workerDone(runs = 200): Promise<void> {
  for (let run = 0; run < runs && (await evaluateSmartLists()).lists > 0; run++);
}

/**
 * Whether a create or filter change reads the filter's candidates among `active` (one country's
 * profiles, their entries whole and carrying their numbers) whole: at most `readAtOnce()` entries
 * under its best criterion, or `scanAtOnce()` when that set is sieved by another of its criteria
 * (codes, places, ranges: lib/lists/sieve.ts) and at most `readAtOnce()` of them pass the sieve.
 */
export function readWhole(filters: Filters, active: readonly FilterProfile[]): boolean {
  const codes = filters.activities ? codesOf(filters.activities) : [];
  const hasCode = (p: FilterProfile) => codes.some((code) => p.activities.some((a) => a.startsWith(code)));
  const places = new Set((filters.places ?? []).map(placeKey));
  const inPlace = (p: FilterProfile) => p.place !== null && places.has(p.place);
  const ranges = (by?: string) => SIEVED_FIGURES.filter((figure) => filters[figure] && figure !== by);
  const inRange = (p: FilterProfile, figure: (typeof SIEVED_FIGURES)[number]) =>
    matchesFilters({ [figure]: filters[figure] }, p);
  /** The set's entries that pass its sieve, or null when nothing sieves it. */
  const sieve = (set: FilterProfile[], by: 'codes' | 'places' | RangeFigure) =>
    (by !== 'codes' && filters.activities) || (by !== 'places' && filters.places) || ranges(by).length > 0
      ? set.filter(
          (p) =>
            (by === 'codes' || !filters.activities || hasCode(p)) &&
            (by === 'places' || !filters.places || inPlace(p)) &&
            ranges(by).every((figure) => inRange(p, figure)),
        )
      : null;
  const sets: { count: number; sieved: FilterProfile[] | null }[] = [{ count: active.length, sieved: null }];
  if (filters.activities)
    sets.push({
      count: codes.reduce(
        (n, code) => n + active.filter((p) => p.activities.some((a) => a.startsWith(code))).length,
        0,
      ),
      sieved: sieve(active.filter(hasCode), 'codes'),
    });
  if (filters.places)
    sets.push({ count: active.filter(inPlace).length, sieved: sieve(active.filter(inPlace), 'places') });
  // A range in its figure's tail reads at most the whole tail (the bands from the tail's up).
  for (const figure of RANGE_FIGURES)
    if ((filters[figure]?.min ?? -Infinity) >= RANGE_TAILS[figure]) {
      const tail = active.filter((p) => (p[figure] ?? -Infinity) >= RANGE_TAILS[figure]);
      sets.push({ count: tail.length, sieved: sieve(tail, figure) });
    }
  const fewest = Math.min(...sets.map((set) => set.count));
  return sets.some(
    (set) =>
      set.count === fewest &&
      (set.count <= readAtOnce() ||
        (set.sieved !== null && set.count <= scanAtOnce() && set.sieved.length <= readAtOnce())),
  );
}
