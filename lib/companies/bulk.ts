/**
 * Bulk company calls (contract §2.2): one result per requested company, in request order,
 * duplicates included; a bad or unknown company fails its own item only.
 */
import { companyKey, parseCompanyNumber, parseCountry, type CompanyRef } from './identifiers';

/** A bulk entry as the request schema lets it through: an object whose fields are judged here. */
export interface BulkCompanyEntry {
  countryCode?: unknown;
  country?: unknown;
  companyNumber?: unknown;
}

export const ITEM_MESSAGES = {
  notFound: 'Company not found',
  invalidNumber: 'Invalid company number',
  invalidCountry: 'Invalid country code',
} as const;

/** The identifier of a failed item: canonical when the number was valid, both values as sent otherwise. */
export interface FailedIdentifier {
  country: unknown;
  companyNumber: unknown;
}

export type ResolvedEntry =
  { ok: true; ref: CompanyRef } | { ok: false; identifier: FailedIdentifier; message: string };

/** `countryCode` names the country; `country` is accepted as a synonym. */
export function resolveEntry(entry: BulkCompanyEntry): ResolvedEntry {
  const countryInput = entry.countryCode ?? entry.country ?? null;
  const numberInput = entry.companyNumber ?? null;
  const country = parseCountry(countryInput);
  if (!country) {
    return {
      ok: false,
      identifier: { country: countryInput, companyNumber: numberInput },
      message: ITEM_MESSAGES.invalidCountry,
    };
  }
  const companyNumber = parseCompanyNumber(country, numberInput);
  if (!companyNumber) {
    return {
      ok: false,
      identifier: { country: countryInput, companyNumber: numberInput },
      message: ITEM_MESSAGES.invalidNumber,
    };
  }
  return { ok: true, ref: { country, companyNumber } };
}

/**
 * Resolves every entry, loads the valid ones in one go, and answers each entry in request order.
 * `load` returns what it found keyed by `companyKey`; whatever it did not find is `Company not found`.
 */
export async function answerEach<Found, Item>(
  entries: BulkCompanyEntry[],
  load: (refs: CompanyRef[]) => Promise<Map<string, Found>>,
  answer: {
    found: (found: Found) => Item;
    failed: (identifier: FailedIdentifier, message: string) => Item;
  },
): Promise<Item[]> {
  const resolved = entries.map(resolveEntry);
  const refs = resolved.flatMap((r) => (r.ok ? [r.ref] : []));
  const found = refs.length > 0 ? await load(refs) : new Map<string, Found>();
  return resolved.map((r) => {
    if (!r.ok) return answer.failed(r.identifier, r.message);
    const hit = found.get(companyKey(r.ref));
    return hit === undefined ? answer.failed({ ...r.ref }, ITEM_MESSAGES.notFound) : answer.found(hit);
  });
}
