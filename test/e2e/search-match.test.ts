/**
 * End to end over HTTP: GET /v1/companies?q= (contract §6.5 search), over the demo data the import
 * loaded. Expected answers come from a brute-force reading of §6.5 over every demo record, so the index
 * and its bounds are checked against the rule itself.
 */
import { importDemoCompanies } from '../../infra/local/demo';
import { nameWords } from '../../lib/companies/normalise';
import type { DemoRecord } from '../fixtures/demo-data/records';
import { expectOk, expectValidationError, identifierOf, useApi } from './http';

const api = useApi();
const search = (query: Record<string, string>) => api.get(`/v1/companies?${new URLSearchParams(query)}`);

/** §6.5 read literally: every query word starts a name word; exact name, then in order, then the rest. */
function expected(q: string, records: DemoRecord[], limit = 10, country?: string) {
  const words = nameWords(q);
  const rank = (name: string[]) => {
    if (words.join(' ') === name.join(' ')) return 0;
    let at = 0;
    for (const word of words) {
      while (at < name.length && !name[at]!.startsWith(word)) at++;
      if (at++ >= name.length) return 2;
    }
    return 1;
  };
  return records
    .filter((r) => !country || r.country === country)
    .map((r) => ({ r, name: nameWords(r.name) }))
    .filter(({ name }) => words.length > 0 && words.every((w) => name.some((n) => n.startsWith(w))))
    .map(({ r, name }) => ({ r, rank: rank(name) }))
    .sort(
      (a, b) =>
        a.rank - b.rank ||
        (a.r.country < b.r.country ? -1 : a.r.country > b.r.country ? 1 : 0) ||
        (a.r.companyNumber < b.r.companyNumber ? -1 : 1),
    )
    .slice(0, limit)
    .map(({ r }) => identifierOf(r));
}

describe('search by name', () => {
  test('a full name finds that company first, then the others the rule gives, in order', async () => {
    for (const record of api.records.slice(0, 12)) {
      const response = await search({ q: record.name });

      expectOk(response);
      expect(response.body[0]).toEqual(identifierOf(record));
      expect(response.body).toEqual(expected(record.name, api.records));
    }
  });

  test('a prefix of each word is enough, in any order, whatever the case, accents and punctuation', async () => {
    const record = api.records.find((r) => nameWords(r.name).length >= 2)!;
    const [first, second] = nameWords(record.name) as [string, string];
    const queries = [
      `${first} ${second.slice(0, 2)}`,
      `${second.slice(0, 3)} ${first.slice(0, 2)}`,
      `${first.toUpperCase()}, ${second.slice(0, 2).toUpperCase()}!`,
      `${first.slice(0, 2)}`,
    ];

    for (const q of queries) {
      const response = await search({ q, limit: '100' });

      expectOk(response);
      expect(response.body).toEqual(expected(q, api.records, 100));
      expect(response.body).toContainEqual(identifierOf(record));
    }
  });

  test('legal-form words are optional on both sides; accents in the query are ignored', async () => {
    const record = api.records.find((r) => /[àâçéèêëîïôûü]/i.test(r.name)) ?? api.records[0]!;
    const bare = nameWords(record.name).join(' ');
    const plain = record.name.normalize('NFKD').replace(/[\u0300-\u036f]/g, '');
    for (const q of [bare, `${bare} NV`, `SAS ${plain}`, plain.toLowerCase()]) {
      const response = await search({ q });

      expectOk(response);
      expect(response.body[0]).toEqual(identifierOf(record));
    }
  });

  test('countryCode restricts to one country; limit caps the answer; nothing found is []', async () => {
    const q = nameWords(api.records[0]!.name)[0]!.slice(0, 2);

    for (const country of ['BE', 'nl', 'FR']) {
      const response = await search({ q, countryCode: country, limit: '100' });

      expectOk(response);
      expect(response.body).toEqual(expected(q, api.records, 100, country.toUpperCase()));
    }
    const capped = await search({ q: 'a', limit: '3' });
    expectValidationError(capped, ['q']);
    const few = await search({ q, limit: '1' });
    expect(few.body).toEqual(expected(q, api.records, 1));
    const none = await search({ q: 'zzqx nothing' });
    expectOk(none);
    expect(none.body).toEqual([]);
  });
});

describe('search by number', () => {
  test('any input form of a company or VAT number finds that company', async () => {
    const be = api.records.find((r) => r.country === 'BE' && r.companyNumber.startsWith('0'))!;
    const fr = api.records.find((r) => r.country === 'FR')!;
    const nl = api.records.find((r) => r.country === 'NL')!;
    const n = be.companyNumber;
    const cases: Array<[string, DemoRecord]> = [
      [`${n.slice(0, 4)}.${n.slice(4, 7)}.${n.slice(7)}`, be],
      [`BE${n}`, be],
      [`be ${n.slice(1)}`, be],
      [`${fr.companyNumber}00012`, fr],
      [fr.vatNumber.toLowerCase(), fr],
      [nl.companyNumber, nl],
      [nl.vatNumber.replace(/(\d{3})/g, '$1 '), nl],
    ];

    for (const [q, record] of cases) {
      const response = await search({ q });

      expectOk(response);
      expect({ q, first: response.body[0] }).toEqual({ q, first: identifierOf(record) });
    }
  });
});

describe('bad input is a 400 naming the field', () => {
  test.each([
    [{}, ['q']],
    [{ q: '  a  ' }, ['q']],
    [{ q: 'x'.repeat(101) }, ['q']],
    [{ q: 'bakkerij', limit: '0' }, ['limit']],
    [{ q: 'bakkerij', limit: '101' }, ['limit']],
    [{ q: 'bakkerij', countryCode: 'DE' }, ['countryCode']],
  ])('%j', async (query, paths) => {
    expectValidationError(await search(query as Record<string, string>), paths);
  });
});

describe('the import keeps the index', () => {
  test('a renamed company is found by its new name and no longer by the words it lost', async () => {
    const record = api.records[5]!;
    const renamed = { ...record, name: `Zyxwerk Quorra ${record.legalForm}` };

    await importDemoCompanies([renamed]);

    const byNew = await search({ q: 'zyxw quo' });
    expect(byNew.body).toEqual([{ ...identifierOf(record), name: renamed.name }]);
    const lost = nameWords(record.name).filter((word) => !nameWords(renamed.name).includes(word));
    for (const word of lost) {
      const response = await search({ q: word, limit: '100' });
      expect(response.body.map((c: { companyNumber: string }) => c.companyNumber)).not.toContain(
        record.companyNumber,
      );
    }
  });
});

describe('POST /v1/companies/match', () => {
  const match = (companies: unknown[]) => api.post('/v1/companies/match', { companies });

  test('answers each entry in order: parameters as sent, up to 5 candidates, confidence descending', async () => {
    const [a, b] = api.records as [DemoRecord, DemoRecord];
    const entries = [
      { name: a.name, companyNumber: a.companyNumber, extra: 'ignored' },
      { place: b.place, name: b.name.toUpperCase() },
      { name: 'Zyxqua Qwortel' },
      { country: 'BE', place: 'Gent' },
      { country: 'BE', companyNumber: '123' },
    ];

    const response = await match(entries);

    expectOk(response);
    expect(response.body).toHaveLength(5);
    expect(response.body.map((item: { parameters: unknown }) => item.parameters)).toEqual([
      { name: a.name, companyNumber: a.companyNumber },
      { place: b.place, name: b.name.toUpperCase() },
      { name: 'Zyxqua Qwortel' },
      { country: 'BE', place: 'Gent' },
      { country: 'BE', companyNumber: '123' },
    ]);
    expect(Object.keys(response.body[0].parameters)).toEqual(['name', 'companyNumber']);
    const [first, second, unknown, unusable, invalid] = response.body;
    expect(first.data[0]).toEqual({
      identifier: identifierOf(a),
      confidence: expect.any(Number),
      matchedOn: ['companyNumber', 'name'],
    });
    expect(first.data[0].confidence).toBeGreaterThanOrEqual(0.9);
    expect(second.data[0].identifier).toEqual(identifierOf(b));
    expect(second.data[0].matchedOn).toEqual(['name', 'place']);
    for (const item of [first, second]) {
      expect(item.message).toBeNull();
      expect(item.data.length).toBeLessThanOrEqual(5);
      const confidences = item.data.map((c: { confidence: number }) => c.confidence);
      expect(confidences).toEqual([...confidences].sort((x, y) => y - x));
      for (const c of confidences) expect(Number(c.toFixed(4))).toBe(c);
    }
    expect(unknown).toEqual({ parameters: { name: 'Zyxqua Qwortel' }, data: [], message: null });
    expect(unusable).toEqual({
      parameters: { country: 'BE', place: 'Gent' },
      data: null,
      message: 'At least one of companyNumber, VAT, website or name is required',
    });
    expect(invalid.message).toBe('Invalid company number');
  });

  test('agrees with PUT: what PUT adds is the top candidate ≥ 0.9, what PUT fails has none ≥ 0.9', async () => {
    const records = api.records.slice(0, 24);
    const entries = records.flatMap((r, i) => [
      { name: r.name, country: r.country },
      { VAT: r.vatNumber.toLowerCase(), name: records[(i + 1) % records.length]!.name },
      ...(r.website ? [{ website: `http://${new URL(r.website).hostname}/contact` }] : []),
      { companyNumber: r.companyNumber, country: r.country === 'NL' ? 'FR' : 'NL' },
    ]);
    const list = await api.post('/v1/lists', { name: 'Match agreement', type: 'STATIC' });
    expect(list.status).toBe(201);

    const put = await api.send('PUT', `/v1/lists/${list.body.id}/companies`, {
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ companies: entries }),
    });
    const matched = await match(entries);

    expectOk(matched);
    const failed = new Set(put.body.failed.map((f: { parameters: unknown }) => JSON.stringify(f.parameters)));
    const added = await api.get(`/v1/lists/${list.body.id}/companies?limit=500`);
    const inList = new Set(added.body.data.map((c: { identifier: DemoRecord }) => companyKey(c.identifier)));
    const sure = new Set<string>();
    entries.forEach((entry, i) => {
      const candidates = (matched.body[i].data ?? []) as Array<{
        identifier: DemoRecord;
        confidence: number;
      }>;
      const [top, ...rest] = candidates;
      if (failed.has(JSON.stringify(entry))) {
        expect(top?.confidence ?? 0).toBeLessThan(0.9);
      } else {
        expect(top!.confidence).toBeGreaterThanOrEqual(0.9);
        expect(inList.has(companyKey(top!.identifier))).toBe(true);
        sure.add(companyKey(top!.identifier));
      }
      for (const other of rest) expect(other.confidence).toBeLessThan(0.9);
    });
    expect(sure).toEqual(inList);
    expect(failed.size).toBeGreaterThan(0);
    expect(sure.size).toBeGreaterThan(0);
  });

  test('bad requests are a 400 naming the field; nothing is written', async () => {
    const entry = { name: 'Acme' };
    expectValidationError(await match(Array.from({ length: 101 }, () => entry)), ['companies']);
    expectValidationError(await match([]), ['companies']);
    expectValidationError(await match([{ name: 42 }]), ['companies[0].name']);
    expectValidationError(await match([{ place: 'x'.repeat(201) }]), ['companies[0].place']);
    expectValidationError(await match(['Acme']), ['companies[0]']);
  });
});

const companyKey = (c: { country: string; companyNumber: string }) => `${c.country}#${c.companyNumber}`;
