/**
 * Contact ids at import (contract §11.1: a `contactId` is unique across the service): a changed
 * company claims the ids it did not have yet (lib/import/store.ts keeps the claims); a company whose
 * contact id belongs to another company is rejected. A claim whose owner no longer lists the contact
 * (left behind by a cut-off run) is stale and is taken over. A run checks and makes its claims one
 * batch at a time, so two of its batches cannot take one id; another import racing for an id makes
 * the claim's write fail, and the batch reads again.
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

/** A line of the import that claims contact ids. */
export interface Claimant {
  line: number;
  record: CompanyRecord;
}

/** Claims the new contact ids of a batch's changed companies; answers those that may be written. */
export type ContactClaimer = <E extends Claimant>(
  changed: E[],
  before: (e: E) => CompanyRecord | null,
) => Promise<E[]>;

/** A run's claimer; `reject` hears of each line rejected for a contact id taken. */
export function contactClaimer(reject: (line: number, reason: string) => void): ContactClaimer {
  let claims: Promise<unknown> = Promise.resolve();
  return (changed, before) => {
    const claiming = claims.then(async () => {
      for (let attempt = 1; ; attempt++) {
        try {
          return await tryClaimContacts(changed, before, reject);
        } catch (error) {
          // Another import claimed one of these ids between our read and our write: read again.
          if (!(error instanceof ClaimRaceError) || attempt === MAX_CLAIM_ATTEMPTS) throw error;
        }
      }
    });
    claims = claiming.catch(() => undefined);
    return claiming;
  };
}

async function tryClaimContacts<E extends Claimant>(
  changed: E[],
  before: (e: E) => CompanyRecord | null,
  reject: (line: number, reason: string) => void,
): Promise<E[]> {
  const wanted = changed.map((e) => ({ entry: e, ids: newContacts(before(e), e.record) }));
  const owners = await getContactOwners(wanted.flatMap((w) => w.ids));
  const ownerRecords = await getCompanyRecords(
    [...owners.values()].filter((owner) => !changed.some((e) => sameCompany(e.record, owner))),
  );
  const stillOwned = (id: number, owner: CompanyRef) =>
    ownerRecords.get(companyKey(owner))?.record.contacts.some((c) => c.contactId === id) ?? false;

  const takenHere = new Map<number, E>();
  const accepted: E[] = [];
  const claims: ContactClaim[] = [];
  for (const { entry, ids } of wanted) {
    const conflict = ids.find((id) => {
      const owner = owners.get(id);
      const other = takenHere.get(id);
      return (
        (other && other !== entry) || (owner && !sameCompany(owner, entry.record) && stillOwned(id, owner))
      );
    });
    if (conflict !== undefined) {
      reject(entry.line, `contacts: contactId ${conflict} belongs to another company`);
      continue;
    }
    accepted.push(entry);
    for (const contactId of ids) {
      takenHere.set(contactId, entry);
      const seen = owners.get(contactId) ?? null;
      // Already ours (claimed by a run cut off before it wrote the company): nothing to write.
      if (!seen || !sameCompany(seen, entry.record))
        claims.push({ contactId, owner: companyRef(entry.record), seen });
    }
  }
  await putContactClaims(claims);
  return accepted;
}

function newContacts(before: CompanyRecord | null, after: CompanyRecord): number[] {
  const had = new Set((before?.contacts ?? []).map((c) => c.contactId));
  return after.contacts.map((c) => c.contactId).filter((id) => !had.has(id));
}

const companyRef = ({ country, companyNumber }: CompanyRef): CompanyRef => ({ country, companyNumber });
const sameCompany = (a: CompanyRef, b: CompanyRef) =>
  a.country === b.country && a.companyNumber === b.companyNumber;
