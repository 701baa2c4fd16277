import fc from 'fast-check';
import { RawJson, toRawJson } from '../../lib/http/raw-json';

describe('toRawJson', () => {
  it('writes what JSON.stringify writes, with raw parts as their text', () => {
    const value = {
      a: 'x"\u2028é',
      b: [1, null, undefined, { c: true, d: undefined }],
      e: new RawJson<number[]>('[1,2.5,-3]'),
      f: [new RawJson<{ g: string }>('{"g":"h"}')],
      i: { toJSON: () => 'j' },
    };
    const parsed = { ...value, e: [1, 2.5, -3], f: [{ g: 'h' }] };

    expect(toRawJson(value).text).toBe(JSON.stringify(parsed));
  });

  it('writes the parts without raw text, beside and inside parts with it, as JSON.stringify does', () => {
    const plain = { n: [1, undefined, { u: undefined, d: new Date(0), s: 'a\\"b' }], e: {}, z: null };
    const value = {
      plain,
      mixed: { before: plain, raw: new RawJson<string[]>('["x"]'), after: [plain, [plain]] },
      list: [plain, new RawJson<number>('7'), undefined],
    };
    const parsed = {
      plain,
      mixed: { before: plain, raw: ['x'], after: [plain, [plain]] },
      list: [plain, 7, null],
    };

    expect(toRawJson(value).text).toBe(JSON.stringify(parsed));
  });

  it('serialises scalars and empty containers as JSON.stringify does', () => {
    for (const value of [null, 0, -0.5, 'x', true, [], {}, [[]]]) {
      expect(toRawJson(value).text).toBe(JSON.stringify(value));
    }
  });

  it('writes texts as they are, whatever they hold (no replacement patterns, no markers of their own)', () => {
    const texts = ['"$&$1$$"', '"\\u0001"', '["\\u0001x#0"]'];
    const value = { a: texts.map((t) => new RawJson<unknown>(t)), b: '\u0001x#0', c: '$&' };

    expect(toRawJson(value).text).toBe(
      JSON.stringify({ a: texts.map((t) => JSON.parse(t) as unknown), b: '\u0001x#0', c: '$&' }),
    );
  });

  it('a RawJson serialised by JSON.stringify itself gives its parsed text', () => {
    expect(JSON.stringify({ a: new RawJson<number[]>('[1, 2]') })).toBe('{"a":[1,2]}');
  });

  it('for any JSON value with any of its parts given as raw text, writes what JSON.stringify writes', () => {
    // Some parts of a JSON value replaced by their own JSON text, as RawJson.
    const withRaw = (value: unknown, pick: () => boolean): unknown => {
      if (pick()) return new RawJson<unknown>(JSON.stringify(value));
      if (Array.isArray(value)) return value.map((v) => withRaw(v, pick));
      if (value !== null && typeof value === 'object')
        return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, withRaw(v, pick)]));
      return value;
    };
    fc.assert(
      fc.property(fc.jsonValue(), fc.infiniteStream(fc.boolean()), (value, picks) => {
        const iterator = picks[Symbol.iterator]();
        const raw = withRaw(value, () => iterator.next().value as boolean);
        expect(toRawJson(raw).text).toBe(JSON.stringify(value));
      }),
      { seed: 20261122, numRuns: 500 },
    );
  });
});
