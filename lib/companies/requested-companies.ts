/**
 * The companies a request names (contract §2.2, §3). In a path, a bad country or number fails the
 * whole request (400); in a bulk body, each entry gets its own result, in request order, duplicates
 * included, and a bad or unknown company fails its own item only.
 */
import { COMPANY_NOT_FOUND, InvalidInput } from '../errors';
import { companyKey, parseCompanyNumber, parseCountry, type CompanyRef } from './identifiers';

/** A bulk entry as the request schema lets it through: an object whose fields are judged here. */
export interface BulkCompanyEntry {
  countryCode?: unknown;
  country?: unknown;
  companyNumber?: unknown;
}

export const COMPANY_MESSAGES = {
  notFound: COMPANY_NOT_FOUND,
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

/** A path names one company: a bad country or number is a 400 for the whole request. */
export function companyRefFromPath(path: { countryCode: string; companyNumber: string }): CompanyRef {
  const country = parseCountry(path.countryCode);
  if (!country) {
    throw InvalidInput.field(COMPANY_MESSAGES.invalidCountry, 'countryCode', 'must be BE, NL or FR');
  }
  const companyNumber = parseCompanyNumber(country, path.companyNumber);
  if (!companyNumber) {
    const detail = `is not a valid ${country} company number`;
    throw InvalidInput.field(COMPANY_MESSAGES.invalidNumber, 'companyNumber', detail);
  }
  return { country, companyNumber };
}

/** `countryCode` names the country; `country` is accepted as a synonym. */
export function resolveEntry(entry: BulkCompanyEntry): ResolvedEntry {
  const countryInput = entry.countryCode ?? entry.country ?? null;
  const numberInput = entry.companyNumber ?? null;
  const country = parseCountry(countryInput);
  const companyNumber = country && parseCompanyNumber(country, numberInput);
  if (country && companyNumber) return { ok: true, ref: { country, companyNumber } };
  return {
    ok: false,
    identifier: { country: countryInput, companyNumber: numberInput },
    message: country ? COMPANY_MESSAGES.invalidNumber : COMPANY_MESSAGES.invalidCountry,
  };
}

/**
 * Resolves every entry, loads the valid ones in one go, and answers each entry in request order.
 * `load` returns what it found keyed by `companyKey`; whatever it did not find is `Company not found`.
 * Loops rather than arrows handed to `map`: V8 compiles an arrow made per request again for each new
 * one once it is hot, and these run for every entry.
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
  const refs: CompanyRef[] = [];
  for (const r of resolved) if (r.ok) refs.push(r.ref);
  const found = refs.length > 0 ? await load(refs) : new Map<string, Found>();
  const items: Item[] = [];
  for (const r of resolved) {
    if (!r.ok) {
      items.push(answer.failed(r.identifier, r.message));
      continue;
    }
    const hit = found.get(companyKey(r.ref));
    items.push(
      hit === undefined ? answer.failed({ ...r.ref }, COMPANY_MESSAGES.notFound) : answer.found(hit),
    );
  }
  return items;
}
