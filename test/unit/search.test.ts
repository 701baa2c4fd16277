/**
 * Company search (contract §6.5): how a name is cut into words, how a match is ranked, and what the
 * import writes to the search index for a change.
 */
import { parseCompanyRecord, type CompanyRecord } from '../../lib/companies/record';
import { nameWords } from '../../lib/companies/normalise';
import { deriveSearchIndex } from '../../lib/search/derive';
import { bestRank, rankOf } from '../../lib/search/search';
import { companyRecord } from '../support/records';

const record = (name: string, place = 'Gent'): CompanyRecord => {
  const parsed = parseCompanyRecord(companyRecord({ name, place }));
  if (!parsed.ok) throw new Error(parsed.reason);
  return parsed.record;
};
const change = (before: CompanyRecord | null, after: CompanyRecord) => ({
  before,
  after,
  asOf: '2026-11-21',
  changeId: 'c1',
});

describe('nameWords', () => {
  test.each([
    ['Acme Bouw NV', ['acme', 'bouw']],
    ['ACME-BOUW N.V.', ['acme', 'bouw']],
    ["Brasserie de l'Étoile SARL", ['brasserie', 'de', 'l', 'etoile']],
    ['SAS Café Crème', ['cafe', 'creme']],
    ['  NV  ', []],
  ])('%s → %j', (name, words) => {
    expect(nameWords(name)).toEqual(words);
  });
});

describe('rankOf', () => {
  const name = ['acme', 'bouw', 'gent'];
  test.each([
    [['acme', 'bouw', 'gent'], 0],
    [['acme', 'bo'], 1],
    [['ac', 'ge'], 1],
    [['bo', 'ac'], 2],
    [['gent', 'acme'], 2],
    [['acme', 'x'], null],
    [['acmes'], null],
    [['acme', 'bouw', 'gent', 'gent'], 2],
  ])('%j in acme bouw gent → %s', (query, rank) => {
    expect(rankOf(query, name)).toBe(rank);
  });
});

describe('deriveSearchIndex', () => {
  test('a new company puts one entry per distinct word, each with the name, place and all words', async () => {
    const company = record('Bakkerij Peeters & Peeters BV');

    const { writes } = await deriveSearchIndex([change(null, company)]);

    expect(writes!.deletes).toEqual([]);
    expect(writes!.puts.map((item) => [item['pk'], item['sk']])).toEqual([
      ['SEARCH#BE#b', 'bakkerij#0403170701'],
      ['SEARCH#BE#p', 'peeters#0403170701'],
    ]);
    expect(writes!.puts[0]).toMatchObject({
      entity: 'SearchWord',
      name: 'Bakkerij Peeters & Peeters BV',
      place: 'Gent',
      words: 'bakkerij peeters peeters',
    });
  });

  test('a rename deletes the words lost and puts the words the name has now', async () => {
    const { writes } = await deriveSearchIndex([change(record('Acme Bouw NV'), record('Acme Renovatie NV'))]);

    expect(writes!.deletes).toEqual([{ pk: 'SEARCH#BE#b', sk: 'bouw#0403170701' }]);
    expect(writes!.puts.map((item) => item['sk'])).toEqual(['acme#0403170701', 'renovatie#0403170701']);
  });

  test('a new place puts the words again; a change of anything else writes nothing', async () => {
    const moved = await deriveSearchIndex([change(record('Acme Bouw NV'), record('Acme Bouw NV', 'Aalst'))]);
    const figures = await deriveSearchIndex([
      change(record('Acme Bouw NV'), { ...record('Acme Bouw NV'), financials: [] }),
    ]);

    expect(moved.writes!.puts.map((item) => item['place'])).toEqual(['Aalst', 'Aalst']);
    expect(figures.writes).toEqual({ puts: [], deletes: [] });
  });

  test('other names: their words are indexed too, the names kept apart, and a change of them alone is written', async () => {
    const plain = record('Acme Bouw NV');
    const named = { ...plain, otherNames: ['AB Construct', 'NV'] };

    const added = await deriveSearchIndex([change(plain, named)]);
    const dropped = await deriveSearchIndex([change(named, plain)]);

    expect(added.writes!.puts.map((item) => item['sk'])).toEqual([
      'acme#0403170701',
      'bouw#0403170701',
      'ab#0403170701',
      'construct#0403170701',
    ]);
    // A name that is nothing but a legal form says nothing.
    expect(added.writes!.puts[0]).toMatchObject({ name: 'Acme Bouw NV', words: 'acme bouw | ab construct' });
    expect(dropped.writes!.deletes.map((key) => key.sk)).toEqual(['ab#0403170701', 'construct#0403170701']);
  });
});

describe('bestRank', () => {
  const names = [
    ['acme', 'bouw'],
    ['ab', 'construct'],
  ];
  test.each([
    [['ab', 'construct'], 0],
    [['acme', 'co'], null],
    [['construct'], 1],
    [['bouw', 'acme'], 2],
    [['ab', 'con'], 1],
    [['acme', 'bo'], 1],
  ])('%j among acme bouw | ab construct → %s (every word in one and the same name)', (query, rank) => {
    expect(bestRank(query, names)).toBe(rank);
  });
});
