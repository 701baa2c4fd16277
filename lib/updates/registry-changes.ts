/**
 * (ext) The updates a change of a company's registered facts derives (contract §8.2): `NAME_CHANGED`,
 * `MOVED` and `STOPPED`, as pure functions of (the record before, the record after, the as-of date).
 *
 * - A company's first import has no before: it derives none of them, but `STOPPED` for a company
 *   imported already stopped, dated its `stoppedOn`.
 * - The first write of a company by a source that had not written it before (a registry taking over
 *   from JSON Lines) is no change either: it derives none of the three.
 * - `NAME_CHANGED` compares the names as search does (lib/companies/normalise.ts `nameWords`: case,
 *   accents, punctuation and legal-form words ignored); dated the day of the change (the as-of date).
 * - `MOVED` compares the registered address part by part (street, number, box, postal code, place) as
 *   search compares words, only where both before and after carry a street or a postal code, and only
 *   the parts both carry (a part that becomes withheld is no move); dated the day of the change.
 * - `STOPPED`: `stoppedOn` appears or moves; dated the new `stoppedOn`.
 *
 * An update's identity is the company, the type and the new value with its day, so deriving the same
 * change again gives the same id (lib/updates/derive.ts `updateId`).
 */
import type { Address, CompanyRecord } from '../companies/record';
import { foldedWords, nameWords } from '../companies/normalise';

export type RegistryUpdateFacts =
  { type: 'NAME_CHANGED'; old: string; new: string } | { type: 'MOVED'; place: string } | { type: 'STOPPED' };

export interface RegistryEvent {
  facts: RegistryUpdateFacts;
  /** What makes the update's id, after the company: the type, the new value and its day. */
  event: string;
  time: string;
}

/** What the import knows of a change beyond the records (lib/derivation/change.ts `CompanyChange`). */
export interface ChangeContext {
  firstBySource?: boolean | undefined;
  addressForms?: { before?: string; after?: string } | undefined;
  /** (ext) The company is erased (lib/derivation/change.ts): it derives no update. */
  gone?: boolean | undefined;
}

export function registryEvents(
  before: CompanyRecord | null,
  after: CompanyRecord,
  asOf: string,
  { firstBySource = false, addressForms }: ChangeContext = {},
): RegistryEvent[] {
  // Records older than these fields may lack them: absent is unknown, as null.
  const stoppedOn = after.stoppedOn ?? null;
  if (!before) return stoppedOn === null ? [] : [stopped(stoppedOn)];
  if (firstBySource) return [];
  const events: RegistryEvent[] = [];
  if (sameWords(before.name) !== sameWords(after.name)) {
    events.push({
      facts: { type: 'NAME_CHANGED', old: before.name, new: after.name },
      event: `NAME_CHANGED#${asOf}#${after.name}`,
      time: asOf,
    });
  }
  if (moved(before.address ?? null, after.address ?? null, addressForms)) {
    const address = after.address!;
    events.push({
      facts: { type: 'MOVED', place: address.place ?? address.postalCode ?? after.place ?? '' },
      event: `MOVED#${asOf}#${ADDRESS_PARTS.map((part) => address[part] ?? '').join('|')}`,
      time: asOf,
    });
  }
  if (stoppedOn !== null && stoppedOn !== (before.stoppedOn ?? null)) events.push(stopped(stoppedOn));
  return events;
}

const stopped = (stoppedOn: string): RegistryEvent => ({
  facts: { type: 'STOPPED' },
  event: `STOPPED#${stoppedOn}`,
  time: stoppedOn,
});

const sameWords = (name: string) => nameWords(name).join(' ');

const ADDRESS_PARTS = ['street', 'number', 'box', 'postalCode', 'place'] as const;

/**
 * Whether the registered address moved: both carry a street or postal code, and a part both carry
 * differs. When the registry gave the address in each of its languages before and after (`forms`), it
 * moved only when no language's address after is one of before's (a new display language is no move).
 */
export function moved(
  before: Address | null,
  after: Address | null,
  forms?: { before?: string; after?: string },
): boolean {
  if (!located(before) || !located(after)) return false;
  if (forms?.before !== undefined && forms.after !== undefined) {
    const was = formsOf(forms.before);
    const now = formsOf(forms.after);
    if (was.length > 0 && now.length > 0) return !now.some((form) => was.some((old) => !differs(old, form)));
  }
  return differs(before, after);
}

/** A part both addresses carry differs (compared as search compares words). */
const differs = (before: Partial<Address>, after: Partial<Address>) =>
  ADDRESS_PARTS.some((part) => {
    const was = before[part] ?? null;
    const now = after[part] ?? null;
    return was !== null && now !== null && foldedWords(was).join(' ') !== foldedWords(now).join(' ');
  });

const formsOf = (json: string) => JSON.parse(json) as Array<Partial<Address>>;

const located = (address: Address | null): address is Address =>
  address !== null && (address.street !== null || address.postalCode !== null);
