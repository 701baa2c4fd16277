/**
 * Update titles in the caller's language (contract §4, §8.2): the only text that changes with
 * `Accept-Language`. The wording is the contract's, byte for byte; PEOPLE_LEFT names up to three people
 * and counts the others, with the verb agreeing with how many left.
 */
import type { Language } from '../http/language';
import type { UpdateFacts } from './derive';

interface Wording {
  published: (year: number) => string;
  growth: (pct: number) => string;
  drop: (n: number) => string;
  renamed: (old: string, now: string) => string;
  moved: (place: string) => string;
  stopped: string;
  /** `and` between the last two names, `other`/`others` for the ones not named. */
  and: string;
  others: (n: number) => string;
  /** The predicate after the names: one person, several. */
  left: { one: string; many: string };
}

const WORDING: Record<Language, Wording> = {
  en: {
    published: (year) => `Financials were published for ${year}`,
    growth: (pct) => `Gross margin grew by ${pct}%`,
    drop: (n) => `Health dropped by ${n}`,
    renamed: (old, now) => `Name changed from ${old} to ${now}`,
    moved: (place) => `Registered office moved to ${place}`,
    stopped: 'The company stopped its activities',
    and: 'and',
    others: (n) => `${n} ${n === 1 ? 'other' : 'others'}`,
    left: { one: 'left the company', many: 'left the company' },
  },
  nl: {
    published: (year) => `Jaarrekening gepubliceerd voor ${year}`,
    growth: (pct) => `Brutomarge steeg met ${pct}%`,
    drop: (n) => `Gezondheid daalde met ${n}`,
    renamed: (old, now) => `Naam gewijzigd van ${old} naar ${now}`,
    moved: (place) => `Maatschappelijke zetel verhuisd naar ${place}`,
    stopped: 'De onderneming heeft haar activiteiten stopgezet',
    and: 'en',
    others: (n) => `${n} ${n === 1 ? 'andere' : 'anderen'}`,
    left: { one: 'heeft het bedrijf verlaten', many: 'hebben het bedrijf verlaten' },
  },
  fr: {
    published: (year) => `Comptes annuels publiés pour ${year}`,
    growth: (pct) => `La marge brute a augmenté de ${pct} %`,
    drop: (n) => `La santé a baissé de ${n}`,
    renamed: (old, now) => `Dénomination modifiée de ${old} en ${now}`,
    moved: (place) => `Siège social transféré à ${place}`,
    stopped: "L'entreprise a cessé ses activités",
    and: 'et',
    others: (n) => `${n} ${n === 1 ? 'autre' : 'autres'}`,
    left: { one: "a quitté l'entreprise", many: "ont quitté l'entreprise" },
  },
};

export function titleOf(update: UpdateFacts, language: Language): string {
  const wording = WORDING[language];
  switch (update.type) {
    case 'PUBLISHED_FINANCIALS':
      return wording.published(update.year);
    case 'GROSS_MARGIN_GROWTH':
      return wording.growth(update.pct);
    case 'HEALTHDROP':
      return wording.drop(update.drop);
    case 'PEOPLE_LEFT':
      return peopleLeft(update.names, update.count, wording);
    case 'NAME_CHANGED':
      return wording.renamed(update.old, update.new);
    case 'MOVED':
      return wording.moved(update.place);
    case 'STOPPED':
      return wording.stopped;
  }
}

/** `A`, `A and B`, `A, B and C`, `A, B, C and 1 other`, `A, B, C and N others`, then the predicate. */
function peopleLeft(names: string[], count: number, wording: Wording): string {
  const others = count - names.length;
  const items = others > 0 ? [...names, wording.others(others)] : names;
  const list =
    items.length === 1
      ? items[0]!
      : `${items.slice(0, -1).join(', ')} ${wording.and} ${items[items.length - 1]!}`;
  return `${list} ${count === 1 ? wording.left.one : wording.left.many}`;
}
