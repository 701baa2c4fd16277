/** Normalisation and matching of PUT /v1/lists/{id}/companies entries (contract §7.5), without storage. */
import { belgianCheckDigits, companyKey, frenchVatKey } from '../../lib/companies/identifiers';
import type { CompanyProfile } from '../../lib/companies/record';
import { matchKeysOf, registeredDomain } from '../../lib/lists/match-index';
import { decide, lookupsOf, planEntry, type Found, type MatchEntry } from '../../lib/matching/decide';
import fc from 'fast-check';
import {
  canonicalVat,
  domainCandidates,
  normaliseName,
  parseVat,
  websiteHost,
} from '../../lib/companies/normalise';
import * as keys from '../../lib/storage/keys';
import { listOrderOfKey } from '../../lib/storage/keys';

describe('normalisation', () => {
  it.each([
    ['Bakkerij Peeters B.V.', 'bakkerij peeters'],
    ['PEETERS, bakkerij', 'bakkerij peeters'],
    ['Électricité Dupont SARL', 'dupont electricite'],
    ["Brasserie de l'Étoile S.A.", 'brasserie de etoile l'],
    ['Mulder & Zonen GmbH', 'mulder zonen'],
    ['BVBA', ''],
  ])('normalises the name %s to %s', (name, expected) => {
    expect(normaliseName(name)).toBe(expected);
  });

  it('shows a stored VAT number as a full parse of it would, canonical forms included (valid or not)', () => {
    const digits = (n: number) => fc.stringMatching(new RegExp(`^\\d{${n}}$`));
    const stored = fc.oneof(
      digits(10).map((d) => `BE${d}`),
      digits(9).map((d) => `BE${d}`),
      fc.tuple(digits(9), digits(2)).map(([d, k]) => `NL${d}B${k}`),
      fc.tuple(fc.stringMatching(/^[0-9A-Z]{2}$/), digits(9)).map(([k, d]) => `FR${k}${d}`),
      fc.constantFrom('BE 0403.170.701', 'be0403170701', 'FR40303265045\n', '0403170701', 'XX123'),
      fc.string(),
    );
    const country = fc.constantFrom('BE' as const, 'NL' as const, 'FR' as const);
    fc.assert(
      fc.property(stored, country, (vat, of) => {
        const parsed = parseVat(vat, of)?.vat ?? vat.replace(/[\s.\-/]+/g, '').toUpperCase();
        expect(canonicalVat(vat, of)).toBe(parsed);
      }),
      { numRuns: 2000 },
    );
  });

  it('reads VAT numbers in their BE, NL and FR forms', () => {
    const frKey = String(frenchVatKey('552100554')).padStart(2, '0');
    expect(parseVat('be 0403.170.701')).toEqual({
      vat: 'BE0403170701',
      ref: { country: 'BE', companyNumber: '0403170701' },
    });
    expect(parseVat('BE403170701')?.vat).toBe('BE0403170701');
    expect(parseVat('nl 1234.56.782.b01')).toEqual({ vat: 'NL123456782B01', ref: null });
    expect(parseVat(`fr${frKey} 552 100 554`)?.ref).toEqual({ country: 'FR', companyNumber: '552100554' });
    expect(parseVat('0403170701', 'BE')?.vat).toBe('BE0403170701');
    expect(parseVat('BE0403170702')).toBeNull();
    expect(parseVat('FR00552100554')).toBeNull();
    expect(parseVat('DE123456789')).toBeNull();
  });

  it('takes the registered domain of a website without fetching it', () => {
    expect(registeredDomain('https://shop.Acme-Bouw.be:8443/x?y')).toBe('acme-bouw.be');
    expect(registeredDomain('www.acme.co.uk')).toBe('acme.co.uk');
    expect(registeredDomain('acme-bouw.be/contact')).toBe('acme-bouw.be');
    expect(registeredDomain('acme.github.io')).toBe('acme.github.io');
    expect(registeredDomain('http://192.168.0.1/')).toBeNull();
    expect(registeredDomain('not a website')).toBeNull();
  });

  it('looks a website up by its host and every suffix but www. ones, which the index alone can tell apart', () => {
    expect(websiteHost('https://Shop.Acme-Bouw.be:8443/x?y')).toBe('shop.acme-bouw.be');
    expect(websiteHost('acme-bouw.be/contact')).toBe('acme-bouw.be');
    expect(websiteHost('http://bücher.de')).toBe('xn--bcher-kva.de');
    expect(websiteHost('http://192.168.0.1/')).toBeNull();
    expect(websiteHost('localhost')).toBeNull();
    expect(websiteHost('not a website')).toBeNull();
    expect(domainCandidates('www.shop.acme.co.uk')).toEqual(['shop.acme.co.uk', 'acme.co.uk', 'co.uk']);
    expect(domainCandidates('www.acme-bouw.be')).toEqual(['acme-bouw.be']);
    // The registered domain the import indexes is always among the candidates of any of its hosts.
    for (const site of [
      'https://shop.Acme-Bouw.be/x',
      'www.acme.co.uk',
      'foo.acme.github.io',
      'http://bücher.de',
    ]) {
      expect(domainCandidates(websiteHost(site)!)).toContain(registeredDomain(site));
    }
  });

  it('indexes a company by VAT, domain and name per country', () => {
    expect(
      matchKeysOf(profile('BE', be('02000001'), 'Bakkerij Peeters BV', 'https://www.peeters.be')),
    ).toEqual([
      { kind: 'VAT', value: `BE${be('02000001')}` },
      { kind: 'DOMAIN', value: 'peeters.be' },
      { kind: 'NAME', value: 'BE#bakkerij peeters' },
    ]);
  });

  it('orders list members newest first, then by country and number, by their key', () => {
    const ref = { country: 'BE' as const, companyNumber: '0403170701' };
    const older = keys.listOrder('acme', 1, 'SAVED', Date.parse('2024-01-01T00:00:00.000Z'), ref).sk;
    const newer = keys.listOrder('acme', 1, 'SAVED', Date.parse('2024-01-02T00:00:00.000Z'), ref).sk;
    const french = keys.listOrder('acme', 1, 'SAVED', Date.parse('2024-01-02T00:00:00.000Z'), {
      country: 'FR',
      companyNumber: '552100554',
    }).sk;
    expect([older, french, newer].sort()).toEqual([newer, french, older]);
    expect(listOrderOfKey(newer)).toEqual({ matchedSinceMs: Date.parse('2024-01-02T00:00:00.000Z'), ref });
  });
});

const be = (firstEight: string) => firstEight + belgianCheckDigits(firstEight);

function profile(country: 'BE' | 'NL' | 'FR', companyNumber: string, name: string, website: string | null) {
  const vatNumber =
    country === 'BE'
      ? `BE${companyNumber}`
      : country === 'FR'
        ? `FR${String(frenchVatKey(companyNumber)).padStart(2, '0')}${companyNumber}`
        : `NL${companyNumber}0B01`;
  return {
    country,
    companyNumber,
    name,
    place: null,
    vatNumber,
    website,
    legalForm: null,
    foundedOn: null,
    stoppedOn: null,
    address: null,
    otherNames: [],
    activities: [],
  } satisfies CompanyProfile;
}

/** An in-memory store of companies, indexed as the import indexes them. */
function storeOf(companies: CompanyProfile[]): Found {
  const index = new Map<string, string[]>();
  for (const company of companies) {
    for (const key of matchKeysOf(company)) {
      const text = `${key.kind}#${key.value}`;
      index.set(text, [...(index.get(text) ?? []), companyKey(company)]);
    }
  }
  const known = new Set(companies.map(companyKey));
  return { exists: (c) => known.has(c), indexed: (key) => index.get(key) ?? [] };
}

const ACME = profile('BE', '0403170701', 'Acme Bouw NV', 'https://www.acme-bouw.be');
const PEETERS_1 = profile('BE', be('02000001'), 'Bakkerij Peeters BV', 'https://www.peeters.be');
const PEETERS_2 = profile('BE', be('02000002'), 'Bakkerij Peeters NV', 'https://www.peeters.be/gent');
const MARTIN = profile('FR', '552100554', 'Boulangerie Martin SAS', null);
const MULDER = profile('NL', '33011433', 'Mulder Bouw B.V.', 'https://mulder-bouw.nl');
const store = storeOf([ACME, PEETERS_1, PEETERS_2, MARTIN, MULDER]);

const match = (entry: MatchEntry) => decide(planEntry(entry), store);
const matched = (company: CompanyProfile) => ({ ok: true, company: companyKey(company) });
const failed = (message: string) => ({ ok: false, message });

describe('matching', () => {
  it('finds a company by its number in every accepted form, with or without country', () => {
    for (const entry of [
      { companyNumber: '0403170701', country: 'BE' },
      { companyNumber: '0403.170.701', country: 'be' },
      { companyNumber: '403170701', country: 'BE' },
      { companyNumber: 'BE0403170701' },
      { companyNumber: '0403 170 701' },
    ]) {
      expect(match(entry)).toEqual(matched(ACME));
    }
    expect(match({ companyNumber: `FR${MARTIN.vatNumber!.slice(2)}` })).toEqual(matched(MARTIN));
    expect(match({ companyNumber: '55210055400013' })).toEqual(matched(MARTIN));
  });

  it('fails an invalid country or number before looking anything up', () => {
    expect(match({ country: 'DE', companyNumber: '0403170701' })).toEqual(failed('Invalid country code'));
    expect(match({ country: 'BE', companyNumber: '0403170702' })).toEqual(failed('Invalid company number'));
    expect(match({ country: 'NL', companyNumber: 'BE0403170701' })).toEqual(failed('Invalid company number'));
    expect(lookupsOf([planEntry({ country: 'DE', name: 'Acme' })])).toEqual({ refs: [], matchKeys: [] });
  });

  it('finds a company by VAT, website domain or name with country', () => {
    expect(match({ VAT: 'be0403170701' })).toEqual(matched(ACME));
    expect(match({ VAT: MULDER.vatNumber!.toLowerCase() })).toEqual(matched(MULDER));
    expect(match({ website: 'HTTPS://acme-bouw.be/nl/contact' })).toEqual(matched(ACME));
    expect(match({ name: 'ACME BOUW', country: 'BE' })).toEqual(matched(ACME));
    expect(match({ name: 'Boulangerie Martin' })).toEqual(matched(MARTIN));
  });

  it('narrows a shared domain by the name, and fails when nothing narrows it', () => {
    expect(match({ website: 'peeters.be' })).toEqual(
      failed('Several companies match; add companyNumber or VAT'),
    );
    expect(match({ website: 'peeters.be', name: 'Peeters Bakkerij' })).toEqual(
      failed('Several companies match; add companyNumber or VAT'),
    );
    expect(match({ website: 'peeters.be', companyNumber: PEETERS_2.companyNumber, country: 'BE' })).toEqual(
      matched(PEETERS_2),
    );
  });

  it('fails properties that point at different companies', () => {
    const conflict = failed('Company properties match different companies');
    expect(match({ companyNumber: '0403170701', country: 'BE', VAT: MARTIN.vatNumber! })).toEqual(conflict);
    expect(match({ VAT: 'BE0403170701', website: 'mulder-bouw.nl' })).toEqual(conflict);
    expect(match({ companyNumber: '0403170701', country: 'BE', name: 'Bakkerij Peeters' })).toEqual(conflict);
    expect(match({ VAT: 'BE0403170701', country: 'NL' })).toEqual(conflict);
    // A valid number not in the data and a VAT number of a known company: two companies.
    expect(match({ companyNumber: be('09999999'), country: 'BE', VAT: 'BE0403170701' })).toEqual(conflict);
  });

  it('lets a strong property decide when the name matches no company (a trade name)', () => {
    expect(match({ companyNumber: '0403170701', country: 'BE', name: 'Acme Construct' })).toEqual(
      matched(ACME),
    );
    expect(match({ website: 'www.acme-bouw.be', name: 'Acme Bouw' })).toEqual(matched(ACME));
  });

  it('does not fall back on the name when a number or VAT number finds nothing', () => {
    expect(match({ companyNumber: be('09999999'), country: 'BE', name: 'Acme Bouw' })).toEqual(
      failed('Company not found'),
    );
    expect(match({ companyNumber: '123' })).toEqual(failed('Company not found'));
    expect(match({ VAT: 'XX123' })).toEqual(failed('Company not found'));
    expect(match({ country: 'BE' })).toEqual(failed('Company not found'));
    expect(match({ name: 'Acme Bouw', country: 'FR' })).toEqual(failed('Company not found'));
  });

  it('reports several equally good candidates as ambiguous', () => {
    expect(match({ name: 'Bakkerij Peeters', country: 'BE' })).toEqual(
      failed('Several companies match; add companyNumber or VAT'),
    );
  });
});
