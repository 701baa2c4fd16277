/**
 * `PUT /v1/lists/{id}/companies` (contract §7.5): adds the companies the entries mean to a static list.
 *
 * DynamoDB calls for 100 entries: (1) the company items the numbers name and (2) the match-index
 * entries of the VAT numbers, domains and names, in parallel (one BatchGetItem each; the second only
 * when an entry gives more than a number); (3) the contact counts of companies found through an index
 * only (skipped when numbers found them all); (4–6) the members, in transactions of 49 that are
 * conditional on the list (lib/lists/store/members.ts says why 49 and how counters stay exact). The list item
 * is read only when no transaction went through (404, 409, or every company already there). So at
 * most 6 for 100 new companies, 4 when numbers name them. With an `Idempotency-Key`, 3 more: the list
 * (read first, so a repeat never shows what the caller may not see), the key's claim and its answer; a
 * repeat makes 2 (the list and the stored answer).
 */
import type { CompanyRef } from '../companies/identifiers';
import type { Caller } from '../tokens/caller';
import { ListNotStatic } from '../errors';
import { withIdempotency } from '../idempotency/idempotency';
import { visibleList } from './lists';
import { decide, lookupsOf, MATCH_MESSAGES, planEntry, type MatchEntry } from '../matching/decide';
import { ENTRY_PROPERTIES, type EntryProperty } from '../matching/entry';
import type { AddListCompaniesResult } from './schemas';
import { getMatchIndexes } from '../search/match-indexes';
import { addMembers } from './store/members';
import { ListChangedError, type StoredList } from './store/model';
import { getListedCompanies } from './store/pages';

/**
 * PUT /v1/lists/{id}/companies as the endpoint runs it: with an `Idempotency-Key`, the list must be
 * one the caller may see before anything is replayed (contract §7.5: another user's stored answer for
 * a private list is a 404, never the answer and never a 409), then the key's first answer or the add.
 */
export async function addCompaniesOnce(
  caller: Caller,
  listId: number,
  entries: Record<string, unknown>[],
  idempotencyKey: string | null,
): Promise<AddListCompaniesResult> {
  if (idempotencyKey === null) return addCompanies(caller, listId, entries);
  await visibleList(caller, listId);
  return withIdempotency(
    { caller, key: idempotencyKey, fingerprint: { route: 'addListCompanies', listId, entries } },
    () => addCompanies(caller, listId, entries),
  );
}

export async function addCompanies(
  caller: Caller,
  listId: number,
  entries: Record<string, unknown>[],
): Promise<AddListCompaniesResult> {
  const given = entries.map(knownProperties);
  const plans = given.map(planEntry);
  const { refs, matchKeys } = lookupsOf(plans);
  const [companies, index] = await Promise.all([getListedCompanies(refs, true), getMatchIndexes(matchKeys)]);

  const decisions = plans.map((plan) =>
    decide(plan, { exists: (c) => companies.has(c), indexed: (key) => index.get(key) ?? [] }),
  );
  // Companies found through an index only: their contact counts (and that they exist) are read now.
  const unread = [
    ...new Set(decisions.flatMap((d) => (d.ok && !companies.has(d.company) ? [d.company] : []))),
  ];
  if (unread.length > 0) {
    for (const [key, company] of await getListedCompanies(unread.map(refOf), true))
      companies.set(key, company);
  }

  const failed: AddListCompaniesResult['failed'] = [];
  const members = new Map<string, { ref: CompanyRef; contacts: number }>();
  decisions.forEach((decision, i) => {
    const company = decision.ok ? companies.get(decision.company) : undefined;
    if (decision.ok && company) {
      members.set(decision.company, { ref: refOf(decision.company), contacts: company.contactCount });
    } else {
      failed.push({
        parameters: given[i]!,
        message: decision.ok ? MATCH_MESSAGES.notFound : decision.message,
      });
    }
  });

  // The transactions are conditional on the list being there, STATIC and visible to the caller, so
  // the list is read only when they say no, or when nothing was written that proves it.
  try {
    const { added, committed } = await addMembers(caller.accountId, listId, [...members.values()], {
      state: 'SAVED',
      now: new Date(),
      onlyType: 'STATIC',
      visibleTo: caller.userEmail,
    });
    if (!committed) requireStatic(await visibleList(caller, listId));
    return addResult(added.length, failed);
  } catch (error) {
    if (!(error instanceof ListChangedError)) throw error;
    // Missing, invisible or SMART: answer as the list is (404, or 409 for a smart list).
    requireStatic(await visibleList(caller, listId));
    throw error;
  }
}

function requireStatic(list: StoredList): void {
  if (list.type !== 'STATIC') throw new ListNotStatic();
}

/** The entry's known properties in the order sent, values as sent (§7.5 `parameters`). */
function knownProperties(entry: Record<string, unknown>): MatchEntry {
  const known: MatchEntry = {};
  for (const key of Object.keys(entry)) {
    if ((ENTRY_PROPERTIES as readonly string[]).includes(key))
      known[key as EntryProperty] = entry[key] as string;
  }
  return known;
}

/**
 * §7.5: success when nothing failed or something was added; N counts the companies this call added
 * (`1 company`, `0 companies` when every entry was already there).
 */
function addResult(added: number, failed: AddListCompaniesResult['failed']): AddListCompaniesResult {
  const success = failed.length === 0 || added > 0;
  return {
    success,
    message: success
      ? `Successfully added ${added} ${added === 1 ? 'company' : 'companies'} to the list`
      : 'No companies were added to the list',
    failed,
  };
}

const refOf = (company: string): CompanyRef => {
  const [country, companyNumber] = company.split('#');
  return { country: country as CompanyRef['country'], companyNumber: companyNumber! };
};
