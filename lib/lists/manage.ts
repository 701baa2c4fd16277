/**
 * Managing lists (contract §7.6): one list, creating, changing and deleting lists, and moving their
 * companies between states. A caller may change any list it can see (§7.1); only the list's creator
 * may delete it or change `shared` (403 for anyone else who can see it; 404 for everyone who cannot).
 */
import { companyKey, parseCompanyNumber, parseCountry, type CompanyRef } from '../companies/identifiers';
import { COMPANY_MESSAGES } from '../companies/requested-companies';
import { answer } from '../http/endpoint';
import type { Caller } from '../tokens/caller';
import { InvalidInput, ListBusy, ListNameTaken, NotListCreator, SmartListLimitReached } from '../errors';
import type { Filters } from './filters';
import { toListAnswer, visibleList } from './lists';
import type { CreateListBody, ListAnswer, MoveListCompaniesResult, UpdateListBody } from './schemas';
import { evaluateSmartLists, forgetSmartLists } from './smart';
import { planEvaluation, type Plan } from './smart-bounds';
import { readListCounts } from './store/contact-counts';
import { settleExpired } from './store/flip-intents';
import { settleHold, holdOf, maxSmartCompanies, smartCompaniesOf } from './store/smart-holds';
import { assessFilters } from './match-counts';
import { noteJob } from './store/smart-jobs';
import { backoff } from '../storage/batch';
import * as keys from '../storage/keys';
import { createList, deleteList, getList, NameTakenError } from './store/lists';
import { updateList, type FilterHold, type ListChanges } from './store/list-changes';
import { getMembers } from './store/members';
import { CONFLICT_RETRIES, ListChangedError, type MemberState, type StoredList } from './store/model';
import { moveMembers, type Move } from './store/moves';

export const DEFAULT_COLUMNS = ['country', 'vatNumber', 'activities'];
const NOT_IN_LIST = 'Company not in list';

/** `GET /v1/lists/{id}`. */
export async function getOneList(caller: Caller, listId: number): Promise<ListAnswer> {
  return toListAnswer(await visibleList(caller, listId));
}

/** The SMART/STATIC rules of §7.6 for `filters` and `notifications`, as 400s on the field. */
function checkKindRules(
  type: StoredList['type'],
  body: { filters?: unknown; notifications?: { enabled: boolean } },
) {
  if (type === 'SMART' && body.notifications?.enabled === true) {
    throw InvalidInput.field(
      'notifications.enabled cannot be true on a SMART list',
      'notifications.enabled',
      'cannot be true on a SMART list',
    );
  }
  if (type === 'STATIC' && body.filters !== undefined) {
    throw InvalidInput.field('filters are only for SMART lists', 'filters', 'are only for SMART lists');
  }
}

/**
 * `POST /v1/lists`: 201 with the list and its Location; a SMART list is evaluated at once as far as
 * EVALUATE_AT_ONCE filter profiles go (the rest in the background: smart-background.ts), its counters
 * those of what is evaluated so far. `listId`: the demo's fixed ids only; a request's list always
 * gets a drawn one.
 */
export async function createOneList(
  caller: Caller,
  body: CreateListBody,
  { listId }: { listId?: number } = {},
) {
  checkKindRules(body.type, body);
  if (body.type === 'SMART' && body.filters === undefined) {
    throw InvalidInput.field(
      'filters are required for a SMART list',
      'filters',
      'is required for a SMART list',
    );
  }
  const now = new Date();
  // A SMART list: 409 from the estimate before any profile is read, then the request's bounded part;
  // what the list holds is taken from the account's bound in the create's own transaction (409
  // LIMIT_REACHED past it when creates race, nothing stored).
  const plan =
    body.filters &&
    (await planEvaluation(body.filters, await checkEstimate(caller.accountId, body.filters, 0)));
  let list: StoredList;
  try {
    list = await createList(
      {
        accountId: caller.accountId,
        name: body.name,
        type: body.type,
        columns: body.columns ?? DEFAULT_COLUMNS,
        shared: body.shared ?? false,
        notificationsEnabled: body.notifications?.enabled ?? false,
        createdBy: caller.userEmail,
        createdAt: now.toISOString(),
        filters: body.filters ?? null,
      },
      {
        pending: body.type === 'SMART',
        ...(listId === undefined ? {} : { id: listId }),
        ...(plan ? { held: plan.held } : {}),
      },
    );
  } catch (error) {
    if (error instanceof NameTakenError) throw new ListNameTaken();
    throw error;
  }
  if (list.type === 'SMART' && plan) {
    const filters = list.filters!;
    if (plan.rest) await noteJob(list.accountId, list.id, JSON.stringify(filters), plan.rest);
    await evaluateSmartLists(
      [
        {
          list: { ...list, filters },
          candidates: plan.now,
          ...(plan.rest ? {} : { completes: { held: plan.held } }),
        },
      ],
      now,
    );
    forgetSmartLists();
    list = (await getList(list.accountId, list.id, { consistent: true })) ?? { ...list, pending: false };
  }
  return answer(toListAnswer(list), { Location: `/v1/lists/${list.id}` });
}

/** `PATCH /v1/lists/{id}`: the fields given that differ from the list's; new filters are evaluated at once. */
export async function updateOneList(
  caller: Caller,
  listId: number,
  body: UpdateListBody,
): Promise<ListAnswer> {
  for (let attempt = 0; ; attempt++) {
    if (attempt > 0) await backoff(attempt, CONFLICT_RETRIES.baseMs, CONFLICT_RETRIES.maxMs);
    const list = await visibleList(caller, listId);
    checkKindRules(list.type, body);
    const changes: ListChanges = {};
    if (body.name !== undefined && body.name !== list.name) changes.name = body.name;
    if (body.columns !== undefined && JSON.stringify(body.columns) !== JSON.stringify(list.columns))
      changes.columns = body.columns;
    if (body.shared !== undefined && body.shared !== list.shared) {
      if (list.createdBy !== caller.userEmail) throw new NotListCreator();
      changes.shared = body.shared;
    }
    if (body.notifications !== undefined && body.notifications.enabled !== list.notificationsEnabled)
      changes.notificationsEnabled = body.notifications.enabled;
    if (body.filters !== undefined && JSON.stringify(body.filters) !== JSON.stringify(list.filters))
      changes.filters = body.filters;
    if (Object.keys(changes).length === 0) return toListAnswer(list);
    const now = new Date();
    const change = changes.filters && (await filterChange(list, changes.filters));
    let changed: StoredList;
    try {
      if (change === null) throw new ListChangedError();
      changed = await updateList(list, changes, now, change?.hold);
    } catch (error) {
      if (error instanceof NameTakenError) throw new ListNameTaken();
      // Changed by someone else between our read and write: read it again (it may be gone: 404).
      if (error instanceof ListChangedError) {
        if (attempt < CHANGE_ATTEMPTS) continue;
        throw new ListBusy();
      }
      throw error;
    }
    if (changes.filters && change) {
      forgetSmartLists();
      await reevaluate(changed, changes.filters, change.plan, now);
      return toListAnswer((await getList(list.accountId, list.id, { consistent: true })) ?? changed);
    }
    return toListAnswer(changed);
  }
}

/**
 * What a filter change will do (smart-bounds.ts: its bounded part) and what the list then holds of its
 * account's bound, read at the list's revision (its NEW members and filter profiles after it). Null
 * while flips are in flight on the list (read again after a wait).
 */
async function filterChange(list: StoredList, filters: Filters) {
  const [read] = await readListCounts([{ accountId: list.accountId, listId: list.id, refs: [] }]);
  if (!read) return null;
  if (read.intent) {
    await settleExpired(list.accountId, list.id, read.intent);
    return null;
  }
  const assessed = await checkEstimate(
    list.accountId,
    filters,
    holdOf(read.companies, read.held),
    read.companies,
  );
  const plan = await planEvaluation(filters, assessed, {
    accountId: list.accountId,
    listId: list.id,
    companies: read.companies,
  });
  const hold: FilterHold = {
    held: plan.held,
    delta: plan.held - holdOf(read.companies, read.held),
    revision: read.revision,
  };
  return { plan, hold };
}

/**
 * The bound checked at once (§7.6), before any filter profile is read: the filters' estimated matches
 * (match-counts.ts, a few counter items) in place of what the list holds now (`holds`; at least its
 * `companies`, which its SAVED and ARCHIVED ones may keep) past the account's bound → 409, nothing
 * changed. An estimate: the exact fill is held to the bound by the conditional writes that follow.
 * Answers the estimate and the filters' candidates (read from the same counter items).
 */
async function checkEstimate(accountId: string, filters: Filters, holds: number, companies = 0) {
  const [assessed, held] = await Promise.all([assessFilters(filters), smartCompaniesOf(accountId)]);
  const max = maxSmartCompanies();
  if (held - holds + Math.max(assessed.estimate, companies) > max) throw new SmartListLimitReached(max);
  return assessed;
}

/**
 * The request's part of a filter change's evaluation. Its job is noted first (with nothing left when
 * the request does it all), so a request that dies leaves it to the worker; a request that finishes
 * ends it with the list's hold, in one transaction.
 */
async function reevaluate(list: StoredList, filters: Filters, plan: Plan, now: Date) {
  const stored = JSON.stringify(filters);
  // A newer filter change got there first: its evaluation is the list's.
  if (!(await noteJob(list.accountId, list.id, stored, plan.rest ?? {}))) return;
  await evaluateSmartLists([{ list: { ...list, filters }, candidates: plan.now }], now);
  if (!plan.rest)
    await settleHold(list.accountId, list.id, stored, {
      key: keys.smartListEvaluation(list.accountId, list.id),
    });
}

/** `DELETE /v1/lists/{id}`: 204 at once; members and order items go in the background. */
export async function deleteOneList(caller: Caller, listId: number): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    const list = await visibleList(caller, listId);
    if (list.createdBy !== caller.userEmail) throw new NotListCreator();
    try {
      await deleteList(list, caller.userEmail);
      break;
    } catch (error) {
      if (!(error instanceof ListChangedError)) throw error;
      // Deleted meanwhile (404 when read again), or written by another request at the same moment
      // (a transaction conflict: try again).
      if (attempt === CHANGE_ATTEMPTS) throw new ListBusy();
    }
  }
  forgetSmartLists();
}

/** Reads and writes of a list that another request keeps changing meanwhile, before a 503. */
const CHANGE_ATTEMPTS = 3;
/** Rounds of a state move (read, write) whose members change under it every time, before a 503. */
const MOVE_ATTEMPTS = 4;

/** A `PATCH …/companies` entry as the schema lets it through: country and number are judged here. */
export interface MoveEntry {
  raw: Record<string, unknown>;
  state: 'SAVED' | 'ARCHIVED';
}

/**
 * `PATCH /v1/lists/{id}/companies`: moves companies between states (NEW → SAVED or ARCHIVED,
 * SAVED ↔ ARCHIVED). `updated` counts the companies whose state changed; a company named twice ends
 * in the state of its last entry. Counters move in the same transactions as the members.
 */
export async function moveListCompanies(
  caller: Caller,
  listId: number,
  entries: MoveEntry[],
): Promise<MoveListCompaniesResult> {
  const list = await visibleList(caller, listId);
  const failed: MoveListCompaniesResult['failed'] = [];
  const targets = new Map<string, { ref: CompanyRef; to: MemberState }>();
  const parsed = entries.map((entry) => {
    const country = parseCountry(entry.raw['country']);
    if (!country) return { entry, problem: COMPANY_MESSAGES.invalidCountry };
    const companyNumber = parseCompanyNumber(country, entry.raw['companyNumber']);
    if (!companyNumber) return { entry, problem: COMPANY_MESSAGES.invalidNumber };
    return { entry, ref: { country, companyNumber } };
  });
  const members = await getMembers(
    list.accountId,
    list.id,
    parsed.flatMap((p) => (p.ref ? [p.ref] : [])),
  );
  for (const p of parsed) {
    const problem = p.problem ?? (members.has(companyKey(p.ref!)) ? null : NOT_IN_LIST);
    if (problem) failed.push({ parameters: echoed(p.entry.raw), message: problem });
    else targets.set(companyKey(p.ref!), { ref: p.ref!, to: p.entry.state });
  }
  let moves: Move[] = [...targets.values()].flatMap(({ ref, to }) => {
    const member = members.get(companyKey(ref))!;
    return member.state === to ? [] : [{ member, to }];
  });
  let updated = 0;
  for (let attempt = 0; moves.length > 0; attempt++) {
    try {
      const { moved, stale } = await moveMembers(list.accountId, list.id, moves, new Date());
      updated += moved.length;
      if (stale.length === 0) break;
      // Changed under us every time (moved by others, counted anew by an import): a retryable 503,
      // never a 200 that leaves them out. What moved stays moved; moving again to a state is a no-op.
      if (attempt === MOVE_ATTEMPTS - 1) throw new ListBusy();
      // Moved by someone else meanwhile: read those again and move them from where they are now.
      const now = await getMembers(
        list.accountId,
        list.id,
        stale.map((m) => m.member.ref),
      );
      moves = stale.flatMap(({ member, to }) => {
        const current = now.get(companyKey(member.ref));
        return current && current.state !== to ? [{ member: current, to }] : [];
      });
    } catch (error) {
      if (error instanceof ListChangedError) await visibleList(caller, listId);
      throw error;
    }
  }
  return { updated, failed };
}

/** §7.6: the entry's `country`, `companyNumber` and `state`, in the order sent, values as sent. */
function echoed(raw: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    Object.keys(raw)
      .filter((key) => key === 'country' || key === 'companyNumber' || key === 'state')
      .map((key) => [key, raw[key]]),
  );
}
