import fc from 'fast-check';
import { bearerToken } from '../../lib/tokens/token-format';

const tokenCharacters = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-'.split('');
const token = fc.string({ unit: fc.constantFrom(...tokenCharacters), minLength: 20, maxLength: 128 });
/** `Bearer` with each letter in either case. */
const scheme = fc
  .array(fc.boolean(), { minLength: 6, maxLength: 6 })
  .map((upper) => [...'bearer'].map((c, i) => (upper[i] ? c.toUpperCase() : c)).join(''));

describe('bearerToken', () => {
  test('takes the scheme in any case and gives the token as sent', () => {
    fc.assert(
      fc.property(scheme, token, (name, value) => {
        expect(bearerToken(`${name} ${value}`)).toBe(value);
      }),
    );
  });

  test.each([
    ['no header', undefined],
    ['another scheme', 'Basic dXNlcjpwYXNzd29yZHBhc3N3b3Jk'],
    ['a scheme that only starts like Bearer', 'Bearerx cd_AAAAAAAAAAAAAAAAAAAAAAAA'],
    ['two spaces', 'Bearer  cd_AAAAAAAAAAAAAAAAAAAAAAAA'],
    ['a token with a character outside base64url', 'Bearer cd_AAAAAAAAAAAAAAAAAAAAAAA='],
    ['a short token', 'Bearer cd_AAAA'],
    ['a token of 129 characters', `Bearer ${'A'.repeat(129)}`],
  ])('refuses %s', (_case, header) => {
    expect(bearerToken(header)).toBeNull();
  });
});
