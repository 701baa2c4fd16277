/**
 * An accounting file's current rubrics read from its text (`rubricsOfText`): the same as its JSON
 * parsed and its rubrics picked (`currentRubrics`), whatever the text, compact as the web services
 * write it or not, valid JSON or not; and a value's cents (`centsOf`) as `Math.round(Number(v) * 100)`.
 */
import fc from 'fast-check';
import { centsOf, currentRubrics, rubricsOfText } from '../../lib/filings/cbso';
import { RUBRIC_CODES, type Rubrics } from '../../lib/filings/mapping';

/** What the text's JSON gives: its current rubrics, or undefined when it is no object with a `Rubrics` array. */
function parsed(text: string): { cents: Array<number | null>; unreadable: number } | undefined {
  let json: unknown;
  try {
    json = JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
  } catch {
    return undefined;
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json)) return undefined;
  const list = (json as Record<string, unknown>)['Rubrics'];
  return Array.isArray(list) ? plain(currentRubrics(list)) : undefined;
}

const plain = ({ rubrics, unreadable }: { rubrics: Rubrics; unreadable: number }) => ({
  cents: RUBRIC_CODES.map((code) => rubrics.get(code)),
  unreadable,
});

const read = (text: string) => {
  const result = rubricsOfText(text);
  return result && plain(result);
};

const codes = fc.oneof(
  fc.constantFrom(...RUBRIC_CODES, ' 9904 ', '9999', ''),
  fc.string({ maxLength: 4 }),
  fc.integer({ min: 0, max: 9999 }),
);
const values = fc.oneof(
  fc.integer({ min: -1e12, max: 1e12 }).map((cents) => (cents / 100).toFixed(2)),
  fc.constantFrom('34.3', '-0.00', '0012', '1.', '.5', '-', '1e3', ' 12.50 ', '0.125', '1'.repeat(400), 'x'),
  fc.stringMatching(/^-?\d{0,16}(\.\d{0,3})?$/),
  fc.string({ maxLength: 6 }),
  fc.double(),
  fc.constant(null),
);
const rubric = fc.record(
  {
    Code: codes,
    Period: fc.oneof(fc.constantFrom('N', 'NM1', 'n', ' N'), fc.string({ maxLength: 2 })),
    Value: values,
  },
  { requiredKeys: [] },
);
/** An accounting file's text: JSON of rubrics, compact or indented, keys in any order, with a BOM or not. */
const accountingTexts = fc
  .tuple(
    fc.array(fc.oneof({ arbitrary: rubric, weight: 9 }, { arbitrary: fc.jsonValue(), weight: 1 }), {
      maxLength: 12,
    }),
    fc.boolean(),
    fc.constantFrom(0, 0, 0, 1, 2),
    fc.boolean(),
  )
  .map(([list, reversed, indent, bom]) => {
    const entries = reversed
      ? list.map((entry) =>
          typeof entry === 'object' && entry !== null && !Array.isArray(entry)
            ? Object.fromEntries(Object.entries(entry).reverse())
            : entry,
        )
      : list;
    return (bom ? '\ufeff' : '') + JSON.stringify({ Rubrics: entries }, null, indent);
  });

describe('an accounting file’s current rubrics from its text', () => {
  it('are those of its JSON, whatever rubrics it gives and however it is written', () => {
    fc.assert(
      fc.property(accountingTexts, (text) => expect(read(text)).toEqual(parsed(text))),
      { numRuns: 500 },
    );
  });

  it('are those of its JSON when the text is cut, spliced or any text at all', () => {
    const texts = fc.oneof(
      fc
        .tuple(accountingTexts, fc.nat(), fc.nat(), fc.string({ maxLength: 3 }))
        .map(([text, from, to, inserted]) => {
          const a = from % (text.length + 1);
          const b = to % (text.length + 1);
          return text.slice(0, Math.min(a, b)) + inserted + text.slice(Math.max(a, b));
        }),
      fc.jsonValue().map((json) => JSON.stringify(json)),
      fc.jsonValue().map((json) => JSON.stringify({ Rubrics: [], other: json })),
      fc.string(),
    );
    fc.assert(
      fc.property(texts, (text) => expect(read(text)).toEqual(parsed(text))),
      { numRuns: 1000 },
    );
  });

  it('read the web services’ compact form, escapes, a second Rubrics and trailing text as JSON does', () => {
    const texts = [
      '{"Rubrics":[]}',
      '\ufeff{"Rubrics":[{"Code":"9904","Period":"N","Value":"12.50"}]}',
      '{"Rubrics":[{"Code":"9904","Period":"N","Value":"12.50"},{"Code":"9904","Period":"NM1","Value":"3"}]}',
      '{"Rubrics":[{"Code":"99\\u0030\\u0034","Period":"N","Value":"1"}]}',
      '{"Rubrics":[{"Code":"9904","Period":"\\u004e","Value":"1"}]}',
      '{"Rubrics":[{"Code":"9904","Period":"N","Value":"1","Code":"9900"}]}',
      '{"Rubrics":[{"Code":"9904","Period":"N","Value":"1"}],"Rubrics":[]}',
      '{"Rubrics":[{"Code":"9904","Period":"N","Value":"1"}]} ',
      '{"Rubrics":[{"Code":"9904","Period":"N","Value":"1"}]}x',
      '{"Rubrics":[{"Code":"9904","Period":"N","Value":"1"},]}',
      '{"Rubrics":[{"Code":"9904","Period":"N","Value":"1\t"}]}',
      '{"Rubrics":[{"Code":"9904","Period":"N","Value":"1"}',
      '',
    ];
    for (const text of texts) expect([text, read(text)]).toEqual([text, parsed(text)]);
    expect(read(texts[1]!)?.cents[RUBRIC_CODES.indexOf('9904')]).toBe(1250);
  });
});

describe('a value’s cents', () => {
  it('are Math.round(Number(value) * 100) of a number as the filings write it, NaN for any other text', () => {
    const numbers = fc.oneof(
      fc.stringMatching(/^-?\d{1,17}(\.\d{0,4})?$/),
      fc.integer({ min: -1e15, max: 1e15 }).map((cents) => (cents / 100).toFixed(2)),
      fc.double({ noNaN: true }).map(String),
      fc.string({ maxLength: 8 }),
    );
    fc.assert(
      fc.property(numbers, (value) => {
        const expected = /^-?\d+(\.\d+)?$/.test(value) ? Math.round(Number(value) * 100) : NaN;
        expect(centsOf(value)).toBe(Number.isFinite(expected) ? expected : NaN);
      }),
      { numRuns: 2000 },
    );
    expect(Object.is(centsOf('-0.00'), -0)).toBe(true);
    expect(centsOf('9999999999999.99')).toBe(999999999999999);
  });
});
