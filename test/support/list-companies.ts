/**
 * The companies the list tests import: named ones matched every way an entry can name a company
 * (number, VAT, website, name) with a race's worth of plain ones beside them, and a numbered set of
 * Belgian companies by activity and place for the smart lists' filters.
 */
import { belgianCheckDigits, frenchVatKey } from '../../lib/companies/identifiers';
import type { CompanyRecordInput } from '../../lib/companies/record';

/** A valid Belgian company number from its first eight digits. */
export const be = (firstEight: string) => firstEight + belgianCheckDigits(firstEight);

export const contact = (contactId: number, firstName: string, lastName: string) => ({
  contactId,
  firstName,
  lastName,
  jobTitle: 'CEO',
});

export const ACME: CompanyRecordInput = {
  country: 'BE',
  companyNumber: '0403170701',
  name: 'Acme Bouw NV',
  place: 'Gent',
  vatNumber: 'BE0403170701',
  website: 'https://www.acme-bouw.be',
  contacts: [contact(101, 'Zoe', 'Aerts'), contact(102, 'An', 'Aerts')],
};
export const MARTIN: CompanyRecordInput = {
  country: 'FR',
  companyNumber: '552100554',
  name: 'Boulangerie Martin SAS',
  place: 'Lyon',
  vatNumber: `FR${String(frenchVatKey('552100554')).padStart(2, '0')}552100554`,
  website: 'https://boulangerie-martin.fr',
  contacts: [contact(103, 'Jean', 'Martin')],
};
export const MULDER: CompanyRecordInput = {
  country: 'NL',
  companyNumber: '33011433',
  name: 'Mulder Bouw B.V.',
  place: 'Utrecht',
  vatNumber: 'NL123456782B01',
  website: 'https://www.mulder-bouw.nl/contact',
};
export const PEETERS_1: CompanyRecordInput = {
  country: 'BE',
  companyNumber: be('02000001'),
  name: 'Bakkerij Peeters BV',
  place: 'Aalst',
  website: 'https://www.peeters.be',
  contacts: [contact(104, 'Jan', 'Peeters')],
};
export const PEETERS_2: CompanyRecordInput = {
  country: 'BE',
  companyNumber: be('02000002'),
  name: 'Bakkerij Peeters NV',
  place: 'Gent',
  website: 'https://www.peeters-gent.be',
};
/** The named companies, each found by what its entries give. */
export const NAMED = [ACME, MARTIN, MULDER, PEETERS_1, PEETERS_2];
/** Many plain companies for the race. */
export const MANY: CompanyRecordInput[] = Array.from({ length: 60 }, (_, i) => ({
  country: 'BE',
  companyNumber: be(`03${String(i).padStart(6, '0')}`),
  name: `Race Company ${i} BV`,
  contacts: i % 3 === 0 ? [contact(1000 + i, 'Ann', `Racer${i}`)] : [],
}));

/** Company `i` (BE 07…): a Belgian company with these activities, in `place`, with `contacts` contacts. */
export const company = (
  i: number,
  activities: string[],
  place: string,
  contacts = 0,
): CompanyRecordInput => ({
  country: 'BE',
  companyNumber: be(`07${String(i).padStart(6, '0')}`),
  name: `Company ${i} BV`,
  place,
  activities,
  contacts: Array.from({ length: contacts }, (_, k) => contact(700_000 + 10 * i + k, 'An', `Person${i}`)),
});
/** Software companies in Gent (0–5), construction in Gent (6–8), software in Brugge (9). */
export const COMPANIES = [
  ...[0, 1, 2, 3, 4, 5].map((i) => company(i, ['62010'], 'Gent', i % 2)),
  ...[6, 7, 8].map((i) => company(i, ['41201'], 'Gent')),
  company(9, ['62020'], 'Brugge', 1),
];

/** The sorted company numbers of COMPANIES at these indexes. */
export const numbers = (...indexes: number[]) => indexes.map((i) => COMPANIES[i]!.companyNumber).sort();
