/** Small readings shared by the registry converters: dates, countries, websites, names. */
import { RECORD_LIMITS } from '../../companies/record';

/** `14-03-2019` (KBO) → `2019-03-14`; null when it is not a real calendar day. */
export function isoFromDayMonthYear(value: string): string | null {
  const match = /^(\d{2})-(\d{2})-(\d{4})$/.exec(value.trim());
  return match ? realDay(`${match[3]}-${match[2]}-${match[1]}`) : null;
}

/** `2019-03-14` (SIRENE) → itself; null when it is not a real calendar day. */
export function isoDate(value: string): string | null {
  const trimmed = value.trim();
  return /^\d{4}-\d{2}-\d{2}$/.test(trimmed) ? realDay(trimmed) : null;
}

/** The day exists: month 1–12, day within the month (leap years counted). Arithmetic: it runs once a row. */
function realDay(iso: string): string | null {
  const year = Number(iso.slice(0, 4));
  const month = Number(iso.slice(5, 7));
  const day = Number(iso.slice(8, 10));
  if (month < 1 || month > 12 || day < 1) return null;
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  const days = month === 2 ? (leap ? 29 : 28) : [4, 6, 9, 11].includes(month) ? 30 : 31;
  return day <= days ? iso : null;
}

let countryCodes: Map<string, string> | undefined;

/**
 * A country as a registry names it in Dutch, French, German or English (`Frankrijk`, `ALLEMAGNE`) → its
 * ISO 3166 alpha-2 code; null when unknown. The names come from the runtime's CLDR data, not a table here.
 */
export function countryCode(name: string): string | null {
  if (!countryCodes) {
    countryCodes = new Map();
    const languages = ['nl', 'fr', 'de', 'en'].map(
      (language) => new Intl.DisplayNames([language], { type: 'region' }),
    );
    for (let a = 65; a <= 90; a++)
      for (let b = 65; b <= 90; b++) {
        const code = String.fromCharCode(a, b);
        if (NOT_A_COUNTRY.test(code)) continue;
        for (const names of languages) {
          const shown = names.of(code);
          // The first code of a name wins: `France` is FR, not the withdrawn FX that CLDR names alike.
          if (shown && shown !== code && !countryCodes.has(folded(shown)))
            countryCodes.set(folded(shown), code);
        }
      }
  }
  return countryCodes.get(folded(name)) ?? null;
}

/** Codes CLDR names that are no country of ISO 3166-1 today: withdrawn (DD, FX, YU, …), groupings, user-assigned. */
const NOT_A_COUNTRY = /^(AN|BU|CS|DD|FX|NT|SU|TP|YU|ZR|EU|EZ|UN|ZZ|Q[M-Z]|X[A-JL-Z])$/;

/** Case, accents and punctuation aside: `ÉTATS-UNIS` and `Etats Unis` are one country. */
const folded = (name: string) =>
  name
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z]+/g, ' ')
    .trim();

/** A website as a registry writes it (`www.acme.be`) → a URL (`https://www.acme.be`); null when empty or too long. */
export function websiteOf(value: string): string | null {
  const trimmed = value.trim();
  if (!trimmed || /\s/.test(trimmed)) return null;
  const url = /^[a-z][a-z0-9+.-]*:\/\//i.test(trimmed) ? trimmed : `https://${trimmed}`;
  return url.length <= RECORD_LIMITS.text ? url : null;
}

/** A text field as the record takes it: trimmed, null when empty, cut to the record's bound. */
export function textOf(value: string | undefined): string | null {
  const trimmed = value?.trim();
  if (!trimmed) return null;
  return trimmed.length <= RECORD_LIMITS.text ? trimmed : trimmed.slice(0, RECORD_LIMITS.text);
}

/** Distinct names other than the company's own, in the order given, at most the record's bound. */
export function otherNamesOf(name: string, candidates: Iterable<string | null>): string[] {
  const seen = new Set([name]);
  const names: string[] = [];
  for (const candidate of candidates) {
    if (!candidate || seen.has(candidate)) continue;
    seen.add(candidate);
    names.push(candidate);
    if (names.length === OTHER_NAMES_LIMIT) break;
  }
  return names;
}

/** Contract §11.1: `otherNames` holds at most 20 names. */
export const OTHER_NAMES_LIMIT = 20;
