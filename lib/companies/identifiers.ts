/**
 * Company identifiers (contract §3): forgiving input, canonical output.
 *
 * | Country | Canonical               | Accepted input                                   | Check                          |
 * |---------|-------------------------|--------------------------------------------------|--------------------------------|
 * | BE      | 10 digits, first 0 or 1 | dots/spaces, `BE` prefix, 9 digits (leading 0 off) | last two = 97 − (first 8 mod 97) |
 * | NL      | 8 digits                | spaces                                           | digits only                    |
 * | FR      | 9-digit SIREN           | spaces, 14-digit SIRET, VAT `FRkk` + SIREN        | Luhn over the 9 digits         |
 */
import { COUNTRIES, type CompanyRef, type Country } from '../company-ref';

export { COUNTRIES, type CompanyRef, type Country };

/** `be`, ` Be ` → `BE`; anything but BE, NL, FR → null. */
export function parseCountry(input: unknown): Country | null {
  if (typeof input !== 'string') return null;
  const upper = input.trim().toUpperCase();
  return (COUNTRIES as readonly string[]).includes(upper) ? (upper as Country) : null;
}

/** The canonical number, or null when the input fails the country's format or checksum. */
export function parseCompanyNumber(country: Country, input: unknown): string | null {
  if (typeof input !== 'string') return null;
  const compact = input.replace(/\s+/g, '').toUpperCase();
  switch (country) {
    case 'BE':
      return parseBelgian(compact);
    case 'NL':
      return /^\d{8}$/.test(compact) ? compact : null;
    case 'FR':
      return parseFrench(compact);
  }
}

/** Both parts at once; `null` when either is invalid. */
export function parseCompanyRef(countryInput: unknown, numberInput: unknown): CompanyRef | null {
  const country = parseCountry(countryInput);
  if (!country) return null;
  const companyNumber = parseCompanyNumber(country, numberInput);
  return companyNumber ? { country, companyNumber } : null;
}

export function companyKey(ref: CompanyRef): string {
  return `${ref.country}#${ref.companyNumber}`;
}

function parseBelgian(compact: string): string | null {
  const digits = compact.replace(/^BE/, '').replace(/\./g, '');
  const number = digits.length === 9 ? `0${digits}` : digits;
  if (!/^[01]\d{9}$/.test(number)) return null;
  return belgianCheckDigits(number.slice(0, 8)) === number.slice(8) ? number : null;
}

/** 97 − (first eight digits mod 97), two digits. */
export function belgianCheckDigits(firstEight: string): string {
  return String(97 - (Number(firstEight) % 97)).padStart(2, '0');
}

function parseFrench(compact: string): string | null {
  let siren: string;
  const vat = /^FR([0-9A-Z]{2})(\d{9})$/.exec(compact);
  if (vat) {
    siren = vat[2]!;
    const key = vat[1]!;
    // Numeric keys are checkable: (12 + 3 × (SIREN mod 97)) mod 97. Letter keys (rare, newer) are not.
    if (/^\d{2}$/.test(key) && Number(key) !== frenchVatKey(siren)) return null;
  } else if (/^\d{14}$/.test(compact)) {
    siren = compact.slice(0, 9);
  } else if (/^\d{9}$/.test(compact)) {
    siren = compact;
  } else {
    return null;
  }
  return luhnValid(siren) ? siren : null;
}

export function frenchVatKey(siren: string): number {
  return (12 + 3 * (Number(siren) % 97)) % 97;
}

export function luhnValid(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

/** The Luhn check digit that completes `body` (used by the demo data to make valid SIRENs). */
export function luhnCheckDigit(body: string): string {
  for (let d = 0; d <= 9; d++) if (luhnValid(body + d)) return String(d);
  throw new Error('unreachable: one of ten digits always completes a Luhn sum');
}
