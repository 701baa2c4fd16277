/**
 * What a customer knows about a company, brought to the forms the match indexes are keyed on
 * (contract §7.5): a VAT number, the host of a website, a normalised name. The import indexes every
 * company by the same functions (lib/lists/match-index.ts), so an entry and a company meet exactly
 * when their normalised forms are equal. The public suffix list is applied by the import only
 * (registered domains): a request looks up every suffix of the host it was given, of which only the
 * registered domain can be in the index — so the functions neither bundle nor load the suffix list
 * (its size and load time: docs/benchmarks.md).
 */
import { parseCompanyNumber, parseCountry, type CompanyRef, type Country } from './identifiers';

/**
 * Legal-form words (BE, NL, FR and their neighbours), compared after accents, case and dots are gone
 * (`N.V.` → `nv`, `S.à r.l.` → `sarl`). They say how a company is incorporated, not which one it is,
 * and customers add, drop or change them freely.
 */
const LEGAL_FORMS = new Set([
  'nv',
  'bv',
  'bvba',
  'cv',
  'cvba',
  'cvoa',
  'commv',
  'gcv',
  'vof',
  'vzw',
  'sa',
  'srl',
  'sprl',
  'sprlu',
  'sc',
  'scrl',
  'scs',
  'snc',
  'sca',
  'asbl',
  'sas',
  'sasu',
  'sarl',
  'eurl',
  'sci',
  'gmbh',
  'ag',
  'kg',
  'ltd',
  'llc',
  'inc',
  'plc',
]);

/**
 * `Bakkerij Peeters B.V.` → `bakkerij`, `peeters`: the words of a name in their order, with accents,
 * case, punctuation and legal-form words removed. Empty when nothing but a legal form is left.
 */
export function nameWords(name: string): string[] {
  return foldedWords(name).filter((word) => !LEGAL_FORMS.has(word));
}

/** Accents and case gone, dots inside abbreviations dropped (N.V. → nv), every other non-alphanumeric a separator. */
export function foldedWords(text: string): string[] {
  const folded = text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/\./g, '')
    .replace(/[^a-z0-9]+/g, ' ')
    .trim();
  return folded ? folded.split(' ') : [];
}

/**
 * `Bakkerij Peeters B.V.` and `PEETERS, bakkerij` → `bakkerij peeters`: the name's words sorted (word
 * order is the commonest way two spellings of one name differ). Empty when nothing but a legal form is left.
 */
export function normaliseName(name: string): string {
  return nameWords(name).sort().join(' ');
}

export interface ParsedVat {
  /** Canonical: country prefix, digits (and NL's `B`), no spaces or dots: `BE0403170701`. */
  vat: string;
  /** The company a BE or FR VAT number names by itself (it contains the company number); null for NL. */
  ref: CompanyRef | null;
}

/**
 * A VAT number in the BE, NL or FR form, with spaces, dots or dashes and in any case
 * (`be 0403.170.701`, `nl123456789b01`, `FR 40 303265045`). Without a country prefix, `country` (when
 * the entry gives one) supplies it. Null when it is not a valid VAT number of these countries.
 */
export function parseVat(input: string, country: Country | null = null): ParsedVat | null {
  let compact = input.replace(/[\s.\-/]+/g, '').toUpperCase();
  if (/^\d/.test(compact) && country) compact = `${country}${compact}`;
  const prefix = parseCountry(compact.slice(0, 2));
  switch (prefix) {
    case 'BE': {
      const number = /^BE\d{9,10}$/.test(compact) ? parseCompanyNumber('BE', compact.slice(2)) : null;
      return number ? { vat: `BE${number}`, ref: { country: 'BE', companyNumber: number } } : null;
    }
    case 'FR': {
      const siren = /^FR[0-9A-Z]{2}\d{9}$/.test(compact) ? parseCompanyNumber('FR', compact) : null;
      return siren ? { vat: compact, ref: { country: 'FR', companyNumber: siren } } : null;
    }
    case 'NL':
      return /^NL\d{9}B\d{2}$/.test(compact) ? { vat: compact, ref: null } : null;
    default:
      return null;
  }
}

/**
 * A stored VAT number as answers show it and the index keys it: canonical when it is a valid BE, NL or
 * FR VAT number, else as imported in upper case without spaces, dots or dashes.
 *
 * A number already written in a canonical form (`BE` + 10 digits, `NL` + 9 digits + `B` + 2, `FR` + key
 * + 9 digits) comes out as it is, valid or not: `parseVat` gives it back unchanged when it is valid, and
 * the fallback has nothing to remove when it is not. The import stores numbers that way, so most answers
 * skip the parse (a bulk details answer makes 100 of them).
 */
export function canonicalVat(vatNumber: string, country: Country): string {
  if (CANONICAL_VAT_FORM.test(vatNumber)) return vatNumber;
  return parseVat(vatNumber, country)?.vat ?? vatNumber.replace(/[\s.\-/]+/g, '').toUpperCase();
}

const CANONICAL_VAT_FORM = /^(?:BE\d{10}|NL\d{9}B\d{2}|FR[0-9A-Z]{2}\d{9})$/;

/**
 * The host of a website as written (`https://Shop.Acme-Bouw.be:8443/x` → `shop.acme-bouw.be`; a
 * scheme is optional, IDNs come out in punycode). Null for an IP address or anything without a dot.
 * The URL is never fetched.
 */
export function websiteHost(website: string): string | null {
  const text = website.trim();
  let host: string;
  try {
    host = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(text) ? text : `http://${text}`).hostname;
  } catch {
    return null;
  }
  host = host.replace(/\.$/, '').toLowerCase();
  if (!host.includes('.') || host.startsWith('[') || /^\d+(\.\d+){3}$/.test(host)) return null;
  return /^[a-z0-9-]+(\.[a-z0-9-]+)+$/.test(host) ? host : null;
}

/**
 * The domains a host may be registered under, longest first: every suffix of two labels or more but
 * those starting `www.` (`shop.acme.co.uk` → `shop.acme.co.uk`, `acme.co.uk`, `co.uk`). The index
 * holds registered domains only, and no registered domain is a public suffix or lies below another
 * company's registered domain, so at most one of them is found.
 */
export function domainCandidates(host: string): string[] {
  const labels = host.split('.');
  return labels
    .slice(0, -1)
    .map((_, i) => labels.slice(i).join('.'))
    .filter((domain) => !domain.startsWith('www.'))
    .slice(-MAX_DOMAIN_CANDIDATES);
}

/** Hosts deeper than this are looked up by their last labels only (a registered domain is rarely longer). */
const MAX_DOMAIN_CANDIDATES = 4;

/** Index values are keyed the same on both sides: the name per country, so one lookup narrows by country. */
export const nameIndexValue = (country: CompanyRef['country'], normalisedName: string) =>
  `${country}#${normalisedName}`;
