import { parseCompanyNumber, parseCompanyRef, parseCountry } from '../../lib/companies/identifiers';

describe('country codes', () => {
  it.each([
    ['BE', 'BE'],
    ['be', 'BE'],
    [' Nl ', 'NL'],
    ['fr', 'FR'],
  ])('accepts %p as %p', (input, expected) => {
    expect(parseCountry(input)).toBe(expected);
  });

  it.each(['DE', 'XX', '', 'BEL', 42, null, undefined])('rejects %p', (input) => {
    expect(parseCountry(input)).toBeNull();
  });
});

describe('Belgian enterprise numbers', () => {
  it.each([
    ['0403170701', '0403170701'], // the contract's example
    ['0202239951', '0202239951'], // Proximus
    ['0400378485', '0400378485'], // Colruyt
    ['0403.170.701', '0403170701'], // dotted
    ['0403 170 701', '0403170701'], // spaced
    ['BE0403170701', '0403170701'], // VAT form
    ['be 0403.170.701', '0403170701'], // VAT form, lower case, dots
    ['403170701', '0403170701'], // nine digits, leading 0 left out
    ['403.170.701', '0403170701'],
    ['1000000021', '1000000021'], // first digit 1: 97 − (10000000 mod 97) = 21
  ])('reads %p as %p', (input, expected) => {
    expect(parseCompanyNumber('BE', input)).toBe(expected);
  });

  it.each([
    ['0403170702', 'wrong check digits'],
    ['0202239950', 'wrong check digits'],
    ['2403170701', 'first digit must be 0 or 1'],
    ['04031707011', 'eleven digits'],
    ['40317070', 'eight digits'],
    ['0403-170-701x', 'letters'],
    ['NL0403170701', 'another prefix'],
    ['', 'empty'],
  ])('rejects %p (%s)', (input) => {
    expect(parseCompanyNumber('BE', input)).toBeNull();
  });
});

describe('Dutch KvK numbers', () => {
  it.each([
    ['33011433', '33011433'],
    ['3301 1433', '33011433'],
  ])('reads %p as %p', (input, expected) => {
    expect(parseCompanyNumber('NL', input)).toBe(expected);
  });

  it.each(['3301143', '330114330', '3301143A', 'NL33011433'])('rejects %p', (input) => {
    expect(parseCompanyNumber('NL', input)).toBeNull();
  });
});

describe('French SIREN numbers', () => {
  it.each([
    ['552100554', '552100554'], // the contract's example
    ['356000000', '356000000'], // La Poste
    ['542051180', '542051180'], // TotalEnergies
    ['552 100 554', '552100554'],
    ['55210055400048', '552100554'], // a SIRET: its first 9 digits
    ['552 100 554 00048', '552100554'],
    ['FR96552100554', '552100554'], // VAT number with its key
    ['fr 96 552 100 554', '552100554'],
  ])('reads %p as %p', (input, expected) => {
    expect(parseCompanyNumber('FR', input)).toBe(expected);
  });

  it.each([
    ['552100555', 'Luhn fails'],
    ['123456789', 'Luhn fails'],
    ['55210055', 'eight digits'],
    ['FR97552100554', 'wrong VAT key'],
    ['FR96552100555', 'VAT with an invalid SIREN'],
    ['5521005540004', 'thirteen digits'],
  ])('rejects %p (%s)', (input) => {
    expect(parseCompanyNumber('FR', input)).toBeNull();
  });
});

describe('non-string input', () => {
  it.each([403170701, null, undefined, {}, ['0403170701']])('rejects %p', (input) => {
    expect(parseCompanyNumber('BE', input)).toBeNull();
  });

  it('resolves country and number together', () => {
    expect(parseCompanyRef('be', '403170701')).toEqual({ country: 'BE', companyNumber: '0403170701' });
    expect(parseCompanyRef('DE', '403170701')).toBeNull();
  });
});
