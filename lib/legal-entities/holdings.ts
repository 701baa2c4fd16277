/**
 * The holdings derivation (contract §6.2, §6.4, §11.2): from the changed companies' `shareholders` —
 * the one stored fact per holding — both sides of each holding, and the companies' legal entity ids.
 * It runs once per import batch, over all the batch's changes (lib/companies/holdings-store.ts keeps
 * the items):
 *
 * 1. legal entity ids are claimed for the changes that have none yet (the import claims a batch's ids
 *    before, so usually none);
 * 2. one round of reads (BatchGetItem, strongly consistent): the relationships items of the changed
 *    companies and of every company among their holders, before and after; a second round for the
 *    companies a new or renamed company holds shares in (their `n#…` names it), when not read yet.
 *    A company new to the stage (no `before`) usually has no item yet: the first attempt does not read
 *    its item but takes it as absent, and its write's condition (no item with a revision) proves it —
 *    when another company's derivation wrote one (it names the new company as a holder), the write is
 *    refused and the next attempt reads every item;
 * 3. on those items, as read: each changed company X gets `self` (identifier, id; `version` grows when
 *    it changed) and `parents`; each of its holder companies H gets `c#X`, and X gets `n#H` when H is
 *    imported; holders X no longer has lose `c#X` and X forgets `n#H`; a new or renamed X names itself
 *    (`n#X`) in the companies it holds. The batch's changes are applied in turn to the same items, so
 *    a holder and its held company in one batch see each other;
 * 4. the items that changed — only those — are written in TransactWriteItems of up to 100 items, each
 *    conditioned on the revision it was read at. When one changed meanwhile (another import), the batch
 *    reads again and writes what is still missing.
 *
 * Why this converges when X and H change in concurrent imports: both write H's item (X its `c#X`, H
 *  its `self`), each conditioned on the revision it read, so whichever comes second reads the other's
 * write first — H then sees `c#X` and names itself in X's item, or X sees H's `self` and names H.
 * A name in X's item is written only on X's revision as read, so a stale one never replaces a newer.
 *
 * Cost per batch: 1–2 BatchGetItem rounds and one transaction item per item that changes — per changed
 * company its own item, one per changed holding, one per company a new or renamed company holds; a
 * change that keeps the company's name, place and holders reads and writes nothing. The
 * import runs one batch's derivation at a time (lib/import/import.ts), so its own batches never race.
 * Idempotent: deriving the same changes again changes no item, so writes nothing.
 */
import { isDeepStrictEqual } from 'node:util';
import type { BatchDerivation, CompanyChange, Derived } from '../derivation/change';
import { assignLegalEntityIds } from './assign';
import { stageIdScheme, type LegalEntityIdScheme } from './ids';
import { backoff } from '../storage/batch';
import { StorageUnavailableError } from '../storage/errors';
import { companyOfAttribute, heldAttribute, holderNameAttribute } from '../storage/keys';
import { companyKey, type CompanyRef } from '../companies/identifiers';
import {
  readRelationshipsItems,
  writeRelationshipsItems,
  type Holder,
  type RegisteredCompany,
  type RelationshipsItem,
  type RelationshipsWrite,
} from '../companies/holdings-store';
import type { CompanyRecord } from '../companies/record';
import { holdersOf } from '../companies/relationships';

/** Rounds of read, compute and write before giving up: each lost one means another import wrote meanwhile. */
const MAX_ATTEMPTS = 10;

export interface HoldingsOptions {
  /** The legal entity id scheme; the stage's by default (tests shrink the id space). */
  idScheme?: () => LegalEntityIdScheme;
}

type Self = RegisteredCompany & { legalEntityId: string };

/** A changed company as the derivation sees it. */
interface Holdings {
  company: CompanyRef;
  self: Self;
  holders: Holder[];
  /** Its holder companies now and before, by `companyKey`. */
  holderCompanies: Map<string, CompanyHolder>;
  formerHolders: Map<string, CompanyHolder>;
  /** New, renamed or moved: the companies it holds show its name. */
  introduced: boolean;
  /** (ext) Erased (§11.5.6): it is no company any more, nobody's parent or child, and names itself nowhere. */
  gone: boolean;
  /** New to the stage: its item is most likely absent (step 2). */
  fresh: boolean;
}

export function holdingsDerivation(options: HoldingsOptions = {}): BatchDerivation {
  const scheme = options.idScheme ?? stageIdScheme;
  return async (all: CompanyChange[]): Promise<Derived> => {
    // A change of a company already derived that keeps its name, place and holders (new periods, a
    // filing) changes no relationships item: its items are not read.
    const changes = all.filter((c) => c.gone || !c.before || !sameHoldings(c.before, c.after));
    if (changes.length === 0) return { updates: 0 };
    // The import assigns a batch's ids together (lib/import/import.ts); changes derived alone claim theirs.
    const missing = changes.filter((c) => !c.legalEntityId && !c.gone).map((c) => companyRef(c.after));
    const claimed =
      missing.length > 0 ? await assignLegalEntityIds(missing, scheme()) : new Map<string, string>();
    const batch = changes.map(({ before, after, legalEntityId, gone = false }): Holdings => {
      const company = companyRef(after);
      const id = legalEntityId ?? claimed.get(companyKey(company)) ?? '';
      return {
        company,
        self: { ...company, name: after.name, place: after.place, legalEntityId: id },
        holders: holdersOf(after),
        holderCompanies: companyHolders(holdersOf(after)),
        formerHolders: companyHolders(holdersOf(before)),
        introduced: !gone && (!before || before.name !== after.name || before.place !== after.place),
        gone,
        fresh: !gone && !before,
      };
    });
    // The first attempt takes new companies' items as absent; refused, the next reads them at once.
    const optimistic = batch.some((h) => h.fresh);
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const assumeAbsent = optimistic && attempt === 0;
      if (attempt > (optimistic ? 1 : 0)) await backoff(attempt);
      if (await writeRelationshipsItems(await planWrites(batch, assumeAbsent))) return { updates: 0 };
    }
    throw new StorageUnavailableError();
  };
}

/** The derivation the import runs, with the stage's id scheme. */
export const deriveHoldings = holdingsDerivation();

/**
 * Reads the items the batch touches and answers what changes in them; with `assumeAbsent`, the items
 * of the batch's new companies are taken as absent, not read (their writes' conditions check it).
 */
async function planWrites(batch: Holdings[], assumeAbsent: boolean): Promise<RelationshipsWrite[]> {
  const first = new Map<string, CompanyRef>();
  for (const h of batch) {
    first.set(companyKey(h.company), h.company);
    for (const holder of [...h.holderCompanies.values(), ...h.formerHolders.values()])
      first.set(companyKey(holder.company), holder.company);
  }
  const items = new Map<string, Working>();
  const load = async (refs: CompanyRef[]) => {
    for (const [key, item] of await readRelationshipsItems(refs)) items.set(key, working(item));
  };
  if (assumeAbsent)
    for (const h of batch.filter((b) => b.fresh)) {
      first.delete(companyKey(h.company));
      items.set(companyKey(h.company), working({ ref: h.company, attributes: {} }));
    }
  await load([...first.values()]);
  const item = (ref: CompanyRef) => items.get(companyKey(ref))!;

  // Own parts first, so that every holding below sees the batch's own companies as imported.
  for (const h of batch) {
    const own = item(h.company);
    if (h.gone) {
      // Its holdings of other companies (`c#…`, their facts) stay: were it imported again, they show again.
      delete own.attributes['self'];
      delete own.attributes['parents'];
      continue;
    }
    if (!sameSelf(own.attributes['self'], h.self)) {
      own.attributes['self'] = h.self;
      own.attributes['version'] = ((own.attributes['version'] as number | undefined) ?? 0) + 1;
    }
    own.attributes['parents'] = JSON.stringify(h.holders);
  }
  for (const h of batch) {
    const own = item(h.company);
    for (const [key, former] of h.formerHolders) {
      if (h.holderCompanies.has(key)) continue;
      delete item(former.company).attributes[heldAttribute(h.company)];
      delete own.attributes[holderNameAttribute(former.company)];
    }
    const shown = { name: h.self.name, place: h.self.place, legalEntityId: h.self.legalEntityId };
    for (const holder of h.holderCompanies.values()) {
      item(holder.company).attributes[heldAttribute(h.company)] = {
        ...shown,
        percentage: holder.percentage,
        function: holder.function,
      };
    }
  }
  for (const h of batch) {
    for (const holder of h.holderCompanies.values()) {
      const name = nameOf(item(holder.company));
      if (name) item(h.company).attributes[holderNameAttribute(holder.company)] = name;
    }
  }

  // The companies a new or renamed company holds (their derivations wrote `c#…` in its item) show its
  // name; those an erased one holds forget it (their parent shows as no registered company).
  const introducedHeld = batch
    .filter((h) => h.introduced || h.gone)
    .map((h) => ({ h, held: heldBy(item(h.company)) }));
  const unread = introducedHeld.flatMap(({ held }) => held).filter((ref) => !items.has(companyKey(ref)));
  if (unread.length > 0) await load([...new Map(unread.map((ref) => [companyKey(ref), ref])).values()]);
  for (const { h, held } of introducedHeld) {
    const name = nameOf(item(h.company));
    for (const ref of held) {
      if (h.gone) delete item(ref).attributes[holderNameAttribute(h.company)];
      else if (name) item(ref).attributes[holderNameAttribute(h.company)] = name;
    }
  }

  return [...items.values()].flatMap((w) => {
    const write = changesOf(w);
    return write ? [write] : [];
  });
}

interface Working {
  item: RelationshipsItem;
  /** The attributes as they will be. */
  attributes: Record<string, unknown>;
}

const working = (item: RelationshipsItem): Working => ({ item, attributes: { ...item.attributes } });

/** What changed in an item since it was read; null when nothing did. */
function changesOf({ item, attributes }: Working): RelationshipsWrite | null {
  const set: Record<string, unknown> = {};
  const remove: string[] = [];
  for (const [name, value] of Object.entries(attributes)) {
    if (!isDeepStrictEqual(item.attributes[name], value)) set[name] = value;
  }
  for (const name of Object.keys(item.attributes)) if (!(name in attributes)) remove.push(name);
  if (Object.keys(set).length === 0 && remove.length === 0) return null;
  return { ref: item.ref, rev: item.attributes['rev'] as number | undefined, set, remove };
}

/** The name an imported company shows in the items of the companies it holds; null when not imported. */
function nameOf({ attributes }: Working): { name: string; place: string | null; version: number } | null {
  const self = attributes['self'] as Self | null | undefined;
  if (!self) return null;
  return { name: self.name, place: self.place, version: attributes['version'] as number };
}

const heldBy = ({ attributes }: Working): CompanyRef[] =>
  Object.keys(attributes)
    .filter((name) => name.startsWith('c#'))
    .map(companyOfAttribute);

/** The same name, place and holders: what the relationships items show of a company. */
const sameHoldings = (before: CompanyRecord, after: CompanyRecord) =>
  before.name === after.name &&
  before.place === after.place &&
  isDeepStrictEqual(holdersOf(before), holdersOf(after));

const sameSelf = (stored: unknown, self: Self) => {
  const s = stored as Partial<Self> | null | undefined;
  return (
    !!s &&
    s.country === self.country &&
    s.companyNumber === self.companyNumber &&
    s.name === self.name &&
    (s.place ?? null) === self.place &&
    s.legalEntityId === self.legalEntityId
  );
};

type CompanyHolder = Holder & { company: CompanyRef };

/** The holders that are companies, by `companyKey`. */
const companyHolders = (holders: Holder[]) =>
  new Map(
    holders.filter((h): h is CompanyHolder => h.company !== null).map((h) => [companyKey(h.company), h]),
  );

const companyRef = ({ country, companyNumber }: CompanyRef): CompanyRef => ({ country, companyNumber });
