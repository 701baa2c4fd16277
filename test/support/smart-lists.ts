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
  unpackProfile,
  type FilterProfile,
  type Filters,
} from '../../lib/lists/filters';
import { recountMatchCounts } from '../../lib/lists/match-recount';
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
