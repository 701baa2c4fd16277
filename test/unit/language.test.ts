import { parseAcceptLanguage } from '../../lib/http/language';

describe('Accept-Language', () => {
  it.each([
    [undefined, 'en'],
    ['', 'en'],
    ['EN', 'en'],
    ['nl', 'nl'],
    ['FR', 'fr'],
    ['nl-BE', 'nl'],
    ['fr-FR,fr;q=0.9,en;q=0.8', 'fr'],
    ['de-DE,de;q=0.9,nl;q=0.5,en;q=0.4', 'nl'],
    ['en;q=0.2, fr;q=0.7', 'fr'],
    ['de, it', 'en'],
    ['*', 'en'],
    ['fr;q=0, nl', 'nl'],
    ['nl;q=abc', 'nl'], // an unreadable weight is ignored, not an error
    [';;;,,,', 'en'],
  ])('%p → %p', (header, expected) => {
    expect(parseAcceptLanguage(header)).toBe(expected);
  });

  it('keeps the first of equally weighted languages', () => {
    expect(parseAcceptLanguage('nl, fr')).toBe('nl');
  });
});
