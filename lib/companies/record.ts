/**
 * The company record (contract §11.1): the one shape in which company data enters the service. One
 * schema gives the validation, the TypeScript types and (later) the documentation; `parseCompanyRecord`
 * adds the rules a schema cannot say (canonical numbers, unique end dates, figures that hang together)
 * and returns the record in canonical form, so that equal data always gives an equal record and hash.
 */
import { createHash } from 'node:crypto';
import * as v from 'valibot';
import { isoDate } from '../http/schemas';
import { frenchVatKey, parseCompanyNumber, parseCountry, type CompanyRef, type Country } from './identifiers';
import { financialPeriodSchema, type FinancialPeriod } from './schemas';
import { byCodePoint } from '../order';
import { periodsProblem } from './period-rules';

export const RECORD_LIMITS = {
  bytes: 256 * 1024,
  financials: 50,
  shareholders: 1000,
  contacts: 1000,
  activities: 50,
  /** (ext) Other names a company is known by (§11.1). */
  otherNames: 20,
  /** Longest free-text field (names, places, job titles, websites). */
  text: 500,
} as const;

const text = (what = 'a string') =>
  v.pipe(
    v.string(`must be ${what}`),
    v.trim(),
    v.minLength(1, 'must not be empty'),
    v.maxLength(RECORD_LIMITS.text, `must be at most ${RECORD_LIMITS.text} characters`),
  );
/** Optional: absent or null both mean "not known". */
const optionalText = v.nullish(text(), null);

/** A NACE code, 2 to 5 digits, dots allowed (`62.01` → `6201`). */
const naceCode = v.pipe(
  v.string('must be a NACE code'),
  v.transform((code) => code.replace(/\./g, '')),
  v.regex(/^\d{2,5}$/, 'must be a NACE code of 2 to 5 digits'),
);

export const SHAREHOLDER_FUNCTIONS = ['SHAREHOLDER'] as const;

const shareholderSchema = v.object({
  country: optionalText,
  companyNumber: optionalText,
  name: text(),
  percentage: v.pipe(v.number('must be a number'), v.gtValue(0, 'must be > 0'), v.maxValue(1, 'must be ≤ 1')),
  function: v.optional(v.picklist(SHAREHOLDER_FUNCTIONS, 'must be SHAREHOLDER'), 'SHAREHOLDER'),
});

const contactSchema = v.object({
  contactId: v.pipe(
    v.number('must be a positive integer'),
    v.safeInteger('must be a positive integer'),
    v.minValue(1, 'must be a positive integer'),
  ),
  firstName: text(),
  lastName: text(),
  jobTitle: optionalText,
});

/** (ext) A postal address: each part optional (contract §11.1); `place` defaults to the record's own. */
const addressSchema = v.nullish(
  v.object(
    {
      street: optionalText,
      number: optionalText,
      box: optionalText,
      postalCode: optionalText,
      place: optionalText,
      /**
       * (ext) The seat's country (ISO 3166 alpha-2) when it is abroad (§11.5.1); absent means the
       * company's own, and stays absent so that records without it keep their hash.
       */
      country: v.optional(
        v.pipe(
          v.string('must be a country code'),
          v.trim(),
          v.toUpperCase(),
          v.regex(/^[A-Z]{2}$/, 'must be an ISO 3166 country code of 2 letters'),
        ),
      ),
    },
    'must be an object',
  ),
  null,
);

const sectionOf = <T extends v.GenericSchema>(item: T, max: number, what: string) =>
  v.nullish(
    v.pipe(
      v.array(item, `must be an array of ${what}`),
      v.maxLength(max, `must hold at most ${max} ${what}`),
    ),
    [],
  );

export const companyRecordSchema = v.object(
  {
    country: v.string('must be BE, NL or FR'),
    companyNumber: v.string('must be a company number'),
    name: text(),
    place: optionalText,
    vatNumber: optionalText,
    website: optionalText,
    legalForm: optionalText,
    foundedOn: v.nullish(isoDate, null),
    stoppedOn: v.nullish(isoDate, null),
    address: addressSchema,
    otherNames: sectionOf(text(), RECORD_LIMITS.otherNames, 'names'),
    activities: sectionOf(naceCode, RECORD_LIMITS.activities, 'NACE codes'),
    financials: sectionOf(financialPeriodSchema, RECORD_LIMITS.financials, 'periods'),
    shareholders: sectionOf(shareholderSchema, RECORD_LIMITS.shareholders, 'shareholders'),
    contacts: sectionOf(contactSchema, RECORD_LIMITS.contacts, 'contacts'),
  },
  // A missing key is reported by `ruleOf` ("name is required"), not by this message.
  'must be a JSON object',
);

/** A record as a file may hold it (before canonicalisation). */
export type CompanyRecordInput = v.InferInput<typeof companyRecordSchema>;

export type ShareholderFunction = (typeof SHAREHOLDER_FUNCTIONS)[number];

export interface Shareholder {
  /** The holder's company when it is a BE/NL/FR company; null for a person or a foreign entity. */
  company: CompanyRef | null;
  name: string;
  percentage: number;
  function: ShareholderFunction;
}

export interface Contact {
  contactId: number;
  firstName: string;
  lastName: string;
  jobTitle: string | null;
}

/** (ext) A postal address as imported: every part a string or null, in the contract's order. */
export interface Address {
  street: string | null;
  number: string | null;
  box: string | null;
  postalCode: string | null;
  place: string | null;
  /** (ext) The seat's country when it is abroad (ISO 3166 alpha-2); absent: the company's own. */
  country?: string;
}

/** Everything known about a company but its sections: what answers show about it. */
export interface CompanyProfile extends CompanyRef {
  name: string;
  place: string | null;
  vatNumber: string | null;
  website: string | null;
  legalForm: string | null;
  foundedOn: string | null;
  /** (ext) The day the company stopped (`YYYY-MM-DD`); null while it is active. */
  stoppedOn: string | null;
  /** (ext) Its postal address; null when the record gives none. */
  address: Address | null;
  /**
   * (ext) Other names the company is known by (abbreviations, trade names, the name in other
   * languages): the source's order, without the registered name and without repeats (`otherNamesOf`).
   */
  otherNames: string[];
  /** NACE codes, digits only, the main one first. */
  activities: string[];
}

/** A whole company, canonical: periods newest first, shareholders and contacts in a fixed order. */
export interface CompanyRecord extends CompanyProfile {
  financials: FinancialPeriod[];
  shareholders: Shareholder[];
  contacts: Contact[];
}

export type ParsedRecord = { ok: true; record: CompanyRecord } | { ok: false; reason: string };

/**
 * Validates one parsed JSON value as a company record (contract §11.1). A rejection names the field
 * and the rule it breaks (`financials[0].people is required`, `vatNumber FR12552100554 has a wrong
 * check key`): it is what the person fixing the file reads, so it must say what to fix.
 */
export function parseCompanyRecord(input: unknown): ParsedRecord {
  // valibot takes an array for an object (and would then ask for its `country`).
  if (Array.isArray(input)) return { ok: false, reason: 'record must be a JSON object' };
  const result = v.safeParse(companyRecordSchema, input, { abortPipeEarly: true });
  if (!result.success) return { ok: false, reason: reasonOf(result.issues[0]) };
  const raw = result.output;
  const country = parseCountry(raw.country);
  if (!country) return { ok: false, reason: `country ${shown(raw.country)} is not BE, NL or FR` };
  const companyNumber = parseCompanyNumber(country, raw.companyNumber);
  if (!companyNumber)
    return { ok: false, reason: invalidNumber('companyNumber', country, raw.companyNumber) };

  const problem =
    vatProblem(raw.vatNumber) ??
    periodsProblem(raw.financials) ??
    shareholdersProblem(raw.shareholders, { country, companyNumber }) ??
    contactsProblem(raw.contacts);
  if (problem) return { ok: false, reason: problem };

  const record: CompanyRecord = {
    country,
    companyNumber,
    name: raw.name,
    place: raw.place,
    vatNumber: raw.vatNumber,
    website: raw.website,
    legalForm: raw.legalForm,
    foundedOn: raw.foundedOn,
    stoppedOn: raw.stoppedOn,
    // An address without a single part says nothing: kept as none, so both forms hash alike.
    address: addressOf(raw.address, country),
    otherNames: otherNamesOf(raw.name, raw.otherNames),
    activities: raw.activities,
    financials: [...raw.financials].sort((a, b) => b.endDate.localeCompare(a.endDate)),
    shareholders: raw.shareholders.map(toShareholder).sort(compareShareholders),
    contacts: [...raw.contacts].sort((a, b) => a.contactId - b.contactId),
  };
  return { ok: true, record };
}

/**
 * A fingerprint of the canonical record: equal data, equal hash; the import skips a company whose hash
 * it has. A record without other names hashes without the key, as records did before it existed, so
 * that data imported then is not judged changed now.
 */
export function recordHash(record: CompanyRecord): string {
  const { otherNames, ...rest } = record;
  const hashed = otherNames.length > 0 ? record : rest;
  return createHash('sha256').update(JSON.stringify(hashed)).digest('base64url');
}

/**
 * `otherNames` as §6.5 keeps them: in the source's order, without the registered name and without
 * repeats (compared after trimming, ignoring case), at most RECORD_LIMITS.otherNames.
 */
export function otherNamesOf(name: string, names: readonly string[]): string[] {
  const seen = new Set([sameNameKey(name)]);
  const kept: string[] = [];
  for (const raw of names) {
    const other = raw.trim();
    const key = sameNameKey(other);
    if (other === '' || seen.has(key)) continue;
    seen.add(key);
    kept.push(other);
    if (kept.length === RECORD_LIMITS.otherNames) break;
  }
  return kept;
}

const sameNameKey = (name: string) => name.trim().toLocaleLowerCase('und');

/**
 * An address without a single part says nothing: kept as none, so both forms hash alike. Its country
 * is kept only when it is not the company's own (a seat abroad).
 */
function addressOf(raw: (CompanyRecordInput['address'] & object) | null, own: Country): Address | null {
  if (!raw) return null;
  const { country, ...parts } = raw as Address;
  if (!Object.values(parts).some((part) => part !== null)) return null;
  return country === undefined || country === own ? parts : { ...parts, country };
}

/** `financials[0].people is required`: the field's path, then the rule it breaks. */
function reasonOf(issue: v.BaseIssue<unknown>): string {
  const path = pathOf(issue);
  return `${path || 'record'} ${ruleOf(issue)}`;
}

function pathOf(issue: v.BaseIssue<unknown>): string {
  let path = '';
  for (const item of issue.path ?? []) {
    const key = item.key as string | number;
    path += typeof key === 'number' ? `[${key}]` : path ? `.${key}` : key;
  }
  return path;
}

/** Messages valibot writes itself start so (`Invalid type: Expected Object but received "x"`). */
const VALIBOT_DEFAULT = /^Invalid \w+: /;

const TYPE_RULES: Record<string, string> = {
  object: 'must be an object',
  array: 'must be an array',
  string: 'must be a string',
  number: 'must be a number',
  boolean: 'must be true or false',
};

function ruleOf(issue: v.BaseIssue<unknown>): string {
  // valibot reports a missing key as an issue of its object with the key last on the path (a key given
  // as undefined, which only code can do, reads the same).
  if (issue.path?.at(-1)?.origin === 'key' || (issue.path && issue.input === undefined)) return 'is required';
  if (!VALIBOT_DEFAULT.test(issue.message)) return issue.message;
  return TYPE_RULES[issue.type] ?? `must be ${issue.expected ?? 'valid'}`;
}

/** A value as a message shows it: a long one cut short, so that a rejection stays one readable line. */
function shown(value: string): string {
  const trimmed = value.trim();
  if (!trimmed) return '""';
  return trimmed.length > 40 ? `${trimmed.slice(0, 40)}…` : trimmed;
}

const invalidNumber = (path: string, country: Country, input: string) =>
  `${path} ${shown(input)} is not a valid ${country} company number (its format or check digits)`;

/**
 * A French VAT number's two digits after `FR` are a check key over the SIREN,
 * (12 + 3 × (SIREN mod 97)) mod 97; a wrong key is a mistyped number. Letter keys (rare) carry no
 * checkable key, and other countries' VAT numbers are kept as given.
 */
function vatProblem(vatNumber: string | null): string | null {
  if (vatNumber === null) return null;
  const french = /^FR(\d{2})(\d{9})$/.exec(vatNumber.replace(/[\s.]/g, '').toUpperCase());
  if (french && Number(french[1]) !== frenchVatKey(french[2]!))
    return `vatNumber ${shown(vatNumber)} has a wrong check key`;
  return null;
}

type RawShareholder = v.InferOutput<typeof shareholderSchema>;

function toShareholder(raw: RawShareholder): Shareholder {
  const country = parseCountry(raw.country);
  const companyNumber = country && parseCompanyNumber(country, raw.companyNumber);
  return {
    company: country && companyNumber ? { country, companyNumber } : null,
    name: raw.name,
    percentage: raw.percentage,
    function: raw.function,
  };
}

function compareShareholders(a: Shareholder, b: Shareholder): number {
  return (
    b.percentage - a.percentage ||
    byCodePoint(a.name, b.name) ||
    byCodePoint(refText(a.company), refText(b.company))
  );
}

const refText = (ref: CompanyRef | null) => (ref ? `${ref.country}#${ref.companyNumber}` : '');
function shareholdersProblem(holders: RawShareholder[], self: CompanyRef): string | null {
  let total = 0;
  for (const [i, holder] of holders.entries()) {
    total += holder.percentage;
    if (holder.companyNumber === null) continue; // A person: no company of ours.
    if (holder.country === null) return `shareholders[${i}].country is required with companyNumber`;
    const country = parseCountry(holder.country);
    if (!country) continue; // A foreign entity: it never resolves to a company of ours.
    const companyNumber = parseCompanyNumber(country, holder.companyNumber);
    if (!companyNumber)
      return invalidNumber(`shareholders[${i}].companyNumber`, country, holder.companyNumber);
    if (country === self.country && companyNumber === self.companyNumber)
      return `shareholders[${i}] is the company itself: a company cannot hold its own shares`;
  }
  // Only floating-point error is forgiven (0.7 + 0.2 + 0.1 is 1.0000000000000002).
  if (total > 1 + 1e-6) return `shareholders' percentages add up to ${round4(total)}, more than 1`;
  return null;
}

function contactsProblem(contacts: Contact[]): string | null {
  const seen = new Set<number>();
  for (const [i, contact] of contacts.entries()) {
    if (seen.has(contact.contactId)) return `contacts[${i}].contactId ${contact.contactId} appears twice`;
    seen.add(contact.contactId);
  }
  return null;
}

const round4 = (x: number) => Math.round(x * 10_000) / 10_000;

export type { Country };
