/**
 * The holdings derivation (contract §6.2, §6.4, §11.2): from a changed company's `shareholders` — the
 * one stored fact per holding — both sides of each holding, and the company's legal entity id.
 *
 * For a changed company X (its item and the items it writes to: lib/companies/holdings-store.ts):
 * 1. its legal entity id is claimed (the same id again when it has one), unless the import did so for
 *    the whole batch already;
 * 2. X's own item gets `self` (identifier, id) and `parents`, and its version grows; the answer lists
 *    the companies X holds shares in whose derivations ran before (their `c#X`… entries in X's item);
 * 3. when X is new or renamed, those companies get X's name (`n#X` in their items);
 * 4. for each holder company H whose holding is new or changed (or when X is new or renamed): H's item
 *    gets `c#X`, and if H is imported its name comes back and goes into X's item (`n#H`);
 * 5. holders X no longer has lose `c#X`, and X's item forgets their names.
 *
 * Why this converges when X and H change in the same run, in any interleaving: step 2 of H and step 4
 * of X each write H's item atomically, so whichever comes second sees the other — H's step 2 sees
 * `c#X` (and H's step 3 names H in X's item), or X's step 4 sees H's `self` (and X names H itself).
 * Both may write `n#H`; it carries H's version and a write never replaces a newer one.
 *
 * What bounds the cost: a changed company writes one item per changed holding (two when the holder is
 * imported); a renamed or new company also writes one item per company it holds shares in (at most
 * what fits its item, about 2,500). Nothing is read but the answers of those writes; no Query, no Scan.
 * Idempotent: deriving the same change again writes the same values (and a higher version).
 */
import { forEachLimited } from '../concurrency';
import type { CompanyChange, Derived } from '../import/change';
import { assignLegalEntityId } from '../legal-entities/assign';
import { stageIdScheme, type LegalEntityIdScheme } from '../legal-entities/ids';
import { companyKey, type CompanyRef } from './identifiers';
import {
  deleteHolderNames,
  deleteHolding,
  putHolderName,
  putHolding,
  putOwnRelationships,
  type Holder,
} from './holdings-store';
import { holdersOf } from './relationships';

/** Writes in flight per derivation (the import runs several derivations at once besides). */
const WRITES_IN_FLIGHT = 8;

export interface HoldingsOptions {
  /** The legal entity id scheme; the stage's by default (tests shrink the id space). */
  idScheme?: () => LegalEntityIdScheme;
}

export function holdingsDerivation(options: HoldingsOptions = {}) {
  const scheme = options.idScheme ?? stageIdScheme;
  return async ({ before, after, legalEntityId: assigned }: CompanyChange): Promise<Derived> => {
    const company: CompanyRef = { country: after.country, companyNumber: after.companyNumber };
    // The import assigns a batch's ids together (lib/import/import.ts); a change derived alone claims its own.
    const legalEntityId = assigned ?? (await assignLegalEntityId(company, scheme()));
    const holders = holdersOf(after);
    const holderCompanies = companyHolders(holders);
    const formerHolders = companyHolders(holdersOf(before));
    const gone = [...formerHolders.values()]
      .filter((h) => !holderCompanies.has(companyKey(h.company)))
      .map((h) => h.company);

    const self = { ...company, name: after.name, place: after.place, legalEntityId };
    await deleteHolderNames(company, gone);
    const { version, held } = await putOwnRelationships(self, holders);

    const introduced = !before || before.name !== after.name || before.place !== after.place;
    const name = { name: after.name, place: after.place, version };
    if (introduced) {
      await forEachLimited(held, WRITES_IN_FLIGHT, (other) => putHolderName(other, company, name));
    }

    const changed = [...holderCompanies.values()].filter(
      (h) => introduced || !sameHolding(formerHolders.get(companyKey(h.company)), h),
    );
    await forEachLimited(changed, WRITES_IN_FLIGHT, async (holder) => {
      const entry = { ...self, percentage: holder.percentage, function: holder.function };
      const holderName = await putHolding(holder.company, entry);
      if (holderName) await putHolderName(company, holder.company, holderName);
    });
    await forEachLimited(gone, WRITES_IN_FLIGHT, (holder) => deleteHolding(holder, company));
    return { updates: 0 };
  };
}

/** The derivation the import runs, with the stage's id scheme. */
export const deriveHoldings = holdingsDerivation();

type CompanyHolder = Holder & { company: CompanyRef };

/** The holders that are companies, by `companyKey`. */
const companyHolders = (holders: Holder[]) =>
  new Map(
    holders.filter((h): h is CompanyHolder => h.company !== null).map((h) => [companyKey(h.company), h]),
  );

const sameHolding = (a: CompanyHolder | undefined, b: CompanyHolder) =>
  a !== undefined && a.percentage === b.percentage && a.function === b.function;
