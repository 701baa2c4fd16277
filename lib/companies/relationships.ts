/**
 * Relationships (contract §6.2): a company's `parents` (its shareholders) and `children` (the
 * companies it holds shares in), both seen through the one fact per holding — the held company's
 * shareholder entry — as lib/legal-entities/holdings.ts derives it at import.
 */
import { CompanyNotFound } from '../errors';
import { toIdentifier } from './company';
import { companyKey, type CompanyRef } from './identifiers';
import {
  getRelationships,
  getRelationshipsOf,
  type Holder,
  type RegisteredCompany,
  type StoredRelationships,
} from './holdings-store';
import type { CompanyRecord } from './record';
import { answerEach, companyRefFromPath, type BulkCompanyEntry } from './requested-companies';
import type { BulkRelationshipsItem, Relationship, Relationships } from './schemas';
import { byCodePoint } from '../order';

export async function getCompanyRelationships(path: { countryCode: string; companyNumber: string }) {
  const found = await getRelationships(companyRefFromPath(path));
  if (!found) throw new CompanyNotFound();
  return { identifier: toIdentifier(found.company), data: relationshipsOf(found) };
}

export function getRelationshipsInBulk({ companies }: { companies: BulkCompanyEntry[] }) {
  return answerEach<StoredRelationships, BulkRelationshipsItem>(companies, getRelationshipsOf, {
    found: (found) => ({
      identifier: toIdentifier(found.company),
      data: relationshipsOf(found),
      message: null,
    }),
    failed: (identifier, message) => ({ identifier, data: null, message }),
  });
}

/** Both sides of a company's holdings, each in the contract's order. */
export function relationshipsOf(stored: StoredRelationships): Relationships {
  const parents = stored.parents.map((holder): Ranked => {
    const registered = holder.company && stored.registeredHolders.get(companyKey(holder.company));
    // A person, a foreign holder or a company not in our data: nothing but `identifier: null`,
    // ranked by what the data says of it.
    if (!registered)
      return {
        rank: { percentage: holder.percentage, name: holder.name, ref: null },
        entry: { identifier: null },
      };
    return ranked(registered, holder);
  });
  const children = stored.children.map((held) => ranked(held, held));
  return { parents: inOrder(parents), children: inOrder(children) };
}

/**
 * The holders of a record, one per holder company (two entries naming the same company are one
 * holding: their percentages add up), people and foreign holders as they are; in the record's order.
 */
export function holdersOf(record: CompanyRecord | null): Holder[] {
  const holders: Holder[] = [];
  const byCompany = new Map<string, Holder>();
  for (const shareholder of record?.shareholders ?? []) {
    const { company, name, percentage } = shareholder;
    const same = company && byCompany.get(companyKey(company));
    if (same) {
      same.percentage = Math.round((same.percentage + percentage) * 1e9) / 1e9;
      continue;
    }
    const holder: Holder = { company, name, percentage, function: shareholder.function };
    if (company) byCompany.set(companyKey(company), holder);
    holders.push(holder);
  }
  return holders;
}

interface Ranked {
  rank: { percentage: number; name: string; ref: CompanyRef | null };
  entry: Relationship;
}

function ranked(company: RegisteredCompany, holding: Pick<Holder, 'percentage' | 'function'>): Ranked {
  return {
    rank: { percentage: holding.percentage, name: company.name, ref: company },
    entry: {
      identifier: toIdentifier(company),
      function: holding.function,
      percentage: holding.percentage,
      name: company.name,
    },
  };
}

/** `percentage` descending, then `name`, then `country` and `companyNumber` (contract §6.2). */
export function compareRanks(a: Ranked['rank'], b: Ranked['rank']): number {
  return (
    b.percentage - a.percentage ||
    byCodePoint(a.name, b.name) ||
    byCodePoint(a.ref?.country ?? '', b.ref?.country ?? '') ||
    byCodePoint(a.ref?.companyNumber ?? '', b.ref?.companyNumber ?? '')
  );
}

const inOrder = (items: Ranked[]) => items.sort((a, b) => compareRanks(a.rank, b.rank)).map((r) => r.entry);
