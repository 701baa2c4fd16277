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
});
