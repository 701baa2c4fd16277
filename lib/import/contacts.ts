/**
 * Contact ids at import (contract §11.1: a `contactId` is unique across the service): a changed
 * company claims the ids it did not have yet (lib/import/store.ts keeps the claims); a company whose
 * contact id belongs to another company is rejected. An id belongs to the company that claimed it last
 * while that company lists the contact: a claim whose company no longer lists it (the company gave
 * the contact up, or a cut-off run left the claim) is free and is taken over. Claims are never
 * released, so that a release can never remove the claim of a company that took the id over.
 *
 * A file is applied line by line: a run claims one batch after the other in file order, and decides
 * whether another company holds an id as that company is at the claiming line — its new record when
 * its line came first (written or still to be written), the stored one otherwise. Another import
 * racing for an id makes the claim's write fail, and the batch reads again.
 */
import { companyKey, type CompanyRef } from '../companies/identifiers';
import type { CompanyRecord } from '../companies/record';
import { getCompanyRecords } from '../companies/store';
import {
  claimContacts as putContactClaims,
  ClaimRaceError,
  getContactOwners,
  type ContactClaim,
} from './store';

const MAX_CLAIM_ATTEMPTS = 3;

/** A line of the import that claims contact ids, with its company as stored before the run wrote it. */
export interface Claimant {
  line: number;
  record: CompanyRecord;
  before: CompanyRecord | null;
}

/**
 * Claims the new contact ids of a batch's changed companies, in file order; answers those that may be
 * written. `written` is a company of the run accepted at an earlier line whose record is not stored
 * yet: as the claiming lines see it.
 */
export type ContactClaimer = <E extends Claimant>(
  changed: E[],
  written: (company: CompanyRef) => CompanyRecord | undefined,
) => Promise<E[]>;

/** A run's claimer; `reject` hears of each line rejected for a contact id taken. */
export function contactClaimer(reject: (line: number, reason: string) => void): ContactClaimer {
  return async (changed, written) => {
    for (let attempt = 1; ; attempt++) {
      try {
        return await tryClaimContacts(changed, written, reject);
      } catch (error) {
        // Another import claimed one of these ids between our read and our write: read again.
        if (!(error instanceof ClaimRaceError) || attempt === MAX_CLAIM_ATTEMPTS) throw error;
      }
    }
  };
}

async function tryClaimContacts<E extends Claimant>(
  unordered: E[],
  written: (company: CompanyRef) => CompanyRecord | undefined,
  reject: (line: number, reason: string) => void,
): Promise<E[]> {
  const changed = [...unordered].sort((a, b) => a.line - b.line);
  const wanted = changed.map((e) => ({ entry: e, ids: newContacts(e.before, e.record) }));
  const owners = await getContactOwners(wanted.flatMap((w) => w.ids));
  const inBatch = new Map(changed.map((e) => [companyKey(e.record), e]));
  const stored = await getCompanyRecords(
    [...owners.values()].filter((owner) => !inBatch.has(companyKey(owner)) && !written(owner)),
  );
  const accepted = new Set<E>();
  /** The company as the claiming line sees it: its new record if its line came first. */
  const recordAt = (owner: CompanyRef, line: number): CompanyRecord | null | undefined => {
    const other = inBatch.get(companyKey(owner));
    if (other) return other.line < line && accepted.has(other) ? other.record : other.before;
    return written(owner) ?? stored.get(companyKey(owner))?.record;
  };
  const holds = (owner: CompanyRef, id: number, line: number) =>
    recordAt(owner, line)?.contacts.some((c) => c.contactId === id) ?? false;

  const takenHere = new Map<number, E>();
  const claims: ContactClaim[] = [];
  for (const { entry, ids } of wanted) {
    const conflict = ids.find((id) => {
      const owner = owners.get(id);
      const other = takenHere.get(id);
      return (
        (other && other !== entry) ||
        (owner && !sameCompany(owner, entry.record) && holds(owner, id, entry.line))
      );
    });
    if (conflict !== undefined) {
      reject(entry.line, `contacts: contactId ${conflict} belongs to another company`);
      continue;
    }
    accepted.add(entry);
    for (const contactId of ids) {
      takenHere.set(contactId, entry);
      const seen = owners.get(contactId) ?? null;
      // Already ours (claimed by a run cut off before it wrote the company): nothing to write.
      if (!seen || !sameCompany(seen, entry.record))
        claims.push({ contactId, owner: companyRef(entry.record), seen });
    }
  }
  await putContactClaims(claims);
  return changed.filter((e) => accepted.has(e));
}

function newContacts(before: CompanyRecord | null, after: CompanyRecord): number[] {
  const had = new Set((before?.contacts ?? []).map((c) => c.contactId));
  return after.contacts.map((c) => c.contactId).filter((id) => !had.has(id));
}

const companyRef = ({ country, companyNumber }: CompanyRef): CompanyRef => ({ country, companyNumber });
const sameCompany = (a: CompanyRef, b: CompanyRef) =>
  a.country === b.country && a.companyNumber === b.companyNumber;
