/**
 * Filings as periods (contract §6.1, §11.4, §11.5.9): the mapping table and its documentation, the
 * health models on the worked examples of docs/financials.md, the identities of §6.1 over generated
 * filings, and replacements that do not depend on the order of imports.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import * as v from 'valibot';
import { periodProblem } from '../../lib/companies/period-rules';
import { financialPeriodSchema, type FinancialPeriod } from '../../lib/companies/schemas';
import { applyFilings, startAfter, type FiledPeriods } from '../../lib/filings/apply';
import { figuresOf, mappingTableMarkdown } from '../../lib/filings/figures';
import type { Filing } from '../../lib/filings/filing';
import { FilingRuns } from '../../lib/filings/filing-runs';
import { companyKey } from '../../lib/companies/identifiers';
import { byCodePoint } from '../../lib/order';
import { altmanZ2, frenchRatiosHealth, healthOfFigures } from '../../lib/filings/health';
import { MAPPING, RUBRIC_CODES, type RatioRow } from '../../lib/filings/mapping';

const DOCS = path.join(__dirname, '..', '..', 'docs', 'financials.md');
const START = '<!-- mapping:start -->';
const END = '<!-- mapping:end -->';

describe('the mapping table', () => {
  it('is the one docs/financials.md shows', () => {
    const docs = readFileSync(DOCS, 'utf8');
    const generated = `${START}\n${mappingTableMarkdown()}\n${END}`;
    const shown = docs.slice(docs.indexOf(START), docs.indexOf(END) + END.length);
    if (process.env['UPDATE_DOCS'] && shown !== generated)
      writeFileSync(DOCS, docs.replace(shown, generated));
    else expect(shown).toBe(generated);
  });

  it('names in RUBRIC_CODES every rubric the Belgian side reads (a converter keeps only those)', () => {
    const codes = fc.constantFrom(...RUBRIC_CODES, '9999', '70/76');
    fc.assert(
      fc.property(fc.dictionary(codes, fc.option(fc.integer({ min: -1e9, max: 1e9 }))), (given) => {
        const asked = new Set<string>();
        const rubrics = {
          get: (code: string) => {
            asked.add(code);
            return given[code] ?? null;
          },
        };
        for (const row of MAPPING) row.cbso.compute(rubrics);
        expect([...asked].filter((code) => !RUBRIC_CODES.includes(code))).toEqual([]);
      }),
      { numRuns: 300 },
    );
    // Every code it names is one a mapping reads, so none is kept for nothing: each code asked for with
    // every rubric given but one (a computed figure may read its terms only when another is missing).
    const asked = new Set<string>();
    for (const missing of RUBRIC_CODES)
      for (const row of MAPPING)
        row.cbso.compute({ get: (code) => (asked.add(code), code === missing ? null : 100) });
    expect(RUBRIC_CODES.filter((code) => !asked.has(code))).toEqual([]);
  });

  it('maps, computes or explains every figure of §6.1, with a confidence mark', () => {
    const figures = figuresOf('cbso', { get: () => null }).figures;
    const fields = Object.entries(figures).flatMap(([group, values]) =>
      Object.keys(values).map((k) => `${group}.${k}`),
    );
    const shapes = financialPeriodSchema.entries;
    const expected = (['profitability', 'liquidity', 'solvency', 'people'] as const).flatMap((group) =>
      Object.keys(shapes[group].entries).map((k) => `${group}.${k}`),
    );
    expect(fields).toEqual(expected);
    for (const row of MAPPING)
      for (const side of [row.cbso, row.inpi]) {
        expect(['contract', 'confirmed', 'observed', 'UNCONFIRMED']).toContain(side.confidence);
        // A figure nothing gives says why it is null.
        if (side.source === '—') expect(side.note).toBeTruthy();
      }
  });
});

describe('the health model', () => {
  const cases = [
    // docs/financials.md's three worked examples.
    {
      name: 'full model 2022',
      f: [400_000, 500_000, 180_000, 600_000, 900_000, 1_500_000],
      z: 4.3424,
      band: 9,
    },
    {
      name: 'full model 2023',
      f: [220_000, 490_000, 50_000, 590_000, 1_210_000, 1_800_000],
      z: 2.3879,
      band: 7,
    },
    { name: 'abbreviated 2023', f: [170_000, 258_600, 70_000, 310_000, 510_000, 820_000], z: 3.6, band: 8 },
  ];
  it.each(cases)('scores the $name example as docs/financials.md shows', ({ f, z, band }) => {
    const [netWorkingCapital, retainedEarnings, ebit, equity, debt, totalAssets] = f as [
      number,
      number,
      number,
      number,
      number,
      number,
    ];
    const score = altmanZ2({ netWorkingCapital, retainedEarnings, ebit, equity, debt, totalAssets })!;
    expect(score.z).toBeCloseTo(z, 4);
    expect(score.band).toBe(band);
  });

  it('bands Altman’s zones: distress 0..4, grey 5..7, safe 8..10', () => {
    const scoreOf = (z: number) =>
      altmanZ2({
        netWorkingCapital: 0,
        retainedEarnings: 0,
        ebit: 0,
        equity: (z / 1.05) * 100,
        debt: 100,
        totalAssets: 1,
      })!.band;
    expect([-3, -1.5, -0.5, 0.3, 1.09, 1.1, 2.59, 2.6, 5.9, 6].map(scoreOf)).toEqual([
      0, 1, 2, 3, 4, 5, 7, 8, 9, 10,
    ]);
  });

  it('is null when a figure it needs is not disclosed, or there are no assets', () => {
    const full = { netWorkingCapital: 1, retainedEarnings: 1, ebit: 1, equity: 1, debt: 1, totalAssets: 10 };
    for (const missing of Object.keys(full)) expect(altmanZ2({ ...full, [missing]: null })).toBeNull();
    expect(altmanZ2({ ...full, totalAssets: 0 })).toBeNull();
    // No debt at all: X4 capped, the healthiest leverage.
    expect(altmanZ2({ ...full, debt: 0 })!.x[3]).toBe(10);
  });

  it('scores French ratio rows on their own columns', () => {
    expect(
      frenchRatiosHealth({ autonomieFinanciere: 41, ratioDeLiquidite: 160, resultatCourantSurCa: 9.5 }),
    ).toBe(10);
    expect(
      frenchRatiosHealth({ autonomieFinanciere: 20, ratioDeLiquidite: 95, resultatCourantSurCa: -2 }),
    ).toBe(5);
    expect(
      frenchRatiosHealth({ autonomieFinanciere: 38.4, ratioDeLiquidite: 135.5, resultatCourantSurCa: 7.2 }),
    ).toBe(9);
    expect(
      frenchRatiosHealth({ autonomieFinanciere: -3, ratioDeLiquidite: 50, resultatCourantSurCa: -8 }),
    ).toBe(0);
    expect(
      frenchRatiosHealth({ autonomieFinanciere: null, ratioDeLiquidite: 50, resultatCourantSurCa: 1 }),
    ).toBeNull();
  });
});

/** Rubrics a filing may give (or leave out, `RUBRIC_CODES`), with amounts in cents. */
const cents = fc.integer({ min: -5_000_000_00, max: 50_000_000_00 });
const rubricSets = fc.dictionary(fc.constantFrom(...RUBRIC_CODES), cents);
const ratioRows = fc.record(
  Object.fromEntries(
    [...MAPPING.filter((r) => r.inpi.source !== '—').map((r) => r.inpi.source)].map((c) => [
      c,
      fc.option(cents),
    ]),
  ),
) as fc.Arbitrary<RatioRow>;

const day = fc
  .integer({ min: 0, max: 3000 })
  .map((n) => new Date(Date.UTC(2015, 0, 1) + n * 86_400_000).toISOString().slice(0, 10));

function belgian(rubrics: Record<string, number>, end: string, deposit: string, ref: number): Filing {
  const { figures, dropped } = figuresOf('cbso', { get: (code) => rubrics[code] ?? null });
  return {
    source: { file: 'x', line: 1 },
    format: 'cbso',
    country: 'BE',
    companyNumber: '0712345630',
    endDate: end,
    startDate: startAfter(undefined, end),
    dateReceived: deposit,
    rank: `cbso:${deposit}#2024-${String(ref).padStart(8, '0')}`,
    healthIndicator: healthOfFigures(figures),
    figures,
    dropped,
  };
}

const valid = (p: FinancialPeriod) =>
  v.safeParse(financialPeriodSchema, p).success && periodProblem(p) === null;

describe('filings as periods', () => {
  it('keep the identities of §6.1 among the figures present, whatever rubrics a filing gives', () => {
    fc.assert(
      fc.property(rubricSets, (rubrics) => {
        const filing = belgian(rubrics, '2023-12-31', '2024-07-31', 1);
        const { financials } = applyFilings([], {}, [filing], '2024-10-01');
        expect(financials.filter((p) => !valid(p))).toEqual([]);
      }),
      { numRuns: 500 },
    );
  });

  it('come back from the import’s grouping as they went in, key order included, grouped by company', async () => {
    const companies = ['0712345630', '0403170701', '0202239951'];
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(rubricSets, fc.constantFrom(...companies), day, fc.boolean()), {
          minLength: 1,
          maxLength: 12,
        }),
        fc.integer({ min: 1, max: 4 }),
        fc.integer({ min: 1, max: 3 }),
        async (drawn, runSize, frameSize) => {
          const filings = drawn.map(([rubrics, companyNumber, end, french], i) => ({
            ...belgian(rubrics, end, '2024-07-31', i),
            companyNumber,
            ...(french
              ? {
                  format: 'inpi-ratios' as const,
                  country: 'FR' as const,
                  startDate: null,
                  dateReceived: null,
                }
              : {}),
          }));
          // Small runs and frames: most filings go through the disk, a run in several frames.
          const runs = new FilingRuns(runSize, frameSize);
          for (const filing of filings) await runs.add(filing);
          const back: Filing[] = [];
          for await (const [key, filing] of runs.sorted()) {
            expect(key).toBe(companyKey(filing));
            back.push(filing);
          }
          const byCompany = [...filings].sort((a, b) => byCodePoint(companyKey(a), companyKey(b)));
          expect(back.map((f) => JSON.stringify(f))).toEqual(byCompany.map((f) => JSON.stringify(f)));
        },
      ),
      { numRuns: 50 },
    );
  });

  it('keep them from any French ratios row', () => {
    fc.assert(
      fc.property(ratioRows, (row) => {
        const { figures } = figuresOf('inpi', row);
        const filing = {
          ...belgian({}, '2023-12-31', '2024-07-31', 1),
          figures,
          rank: 'inpi:2',
          startDate: null,
        };
        const { financials } = applyFilings([], {}, [filing], '2024-10-01');
        expect(financials.filter((p) => !valid(p))).toEqual([]);
      }),
      { numRuns: 300 },
    );
  });

  it('end the same whatever the order of the filings and of the imports', () => {
    const filings = fc.array(
      fc.record({
        rubrics: rubricSets,
        end: fc.constantFrom('2022-12-31', '2023-12-31'),
        deposit: day,
        ref: fc.integer({ min: 1, max: 5 }),
      }),
      { minLength: 1, maxLength: 6 },
    );
    fc.assert(
      fc.property(filings, fc.func(fc.integer()), fc.integer({ min: 1, max: 5 }), (specs, order, cut) => {
        const all = specs.map((s) => belgian(s.rubrics, s.end, s.deposit, s.ref));
        const once = applyFilings([], {}, all, '2025-01-01');
        // Another order, in two imports: the first part, then the rest over what it left.
        const shuffled = [...all].sort((a, b) => order(a.rank) - order(b.rank));
        const first = applyFilings([], {}, shuffled.slice(0, cut), '2025-01-01');
        const second = applyFilings(
          first.financials,
          first.filed as FiledPeriods,
          shuffled.slice(cut),
          '2025-01-01',
        );
        // Filings of one rank with different figures are the same filing read twice: the last read wins.
        const ranks = new Set(all.map((f) => `${f.endDate}${f.rank}`));
        if (ranks.size === all.length) expect(second.financials).toEqual(once.financials);
      }),
      { numRuns: 300 },
    );
  });

  it('never let an older filing replace a later one, across imports', () => {
    const later = belgian({ '9901': 100_00 }, '2023-12-31', '2024-09-15', 2);
    const earlier = belgian({ '9901': 90_00 }, '2023-12-31', '2024-07-31', 1);
    const first = applyFilings([], {}, [later], '2024-10-01');
    const second = applyFilings(first.financials, first.filed, [earlier], '2024-10-02');
    expect(second.outcomes).toEqual(['superseded']);
    expect(second.financials).toEqual(first.financials);
  });

  it('never rank a period by a record entry whose period was never written (a cut-off run)', () => {
    const high = belgian({ '9901': 100_00 }, '2023-12-31', '2024-12-01', 3);
    const low = belgian({ '9901': 100_00 }, '2023-12-31', '2024-06-01', 1);
    const middle = belgian({ '9901': 120_00 }, '2023-12-31', '2024-09-01', 2);
    // A run wrote the record naming `high` and was cut off before the company: no period there.
    const cut = applyFilings([], {}, [high], '2024-12-02').filed;
    // `low` brings the period (the same figures as `high`'s); `middle`, later than `low`, replaces it.
    const first = applyFilings([], cut, [low], '2025-01-01');
    expect(first.outcomes).toEqual(['new']);
    expect(
      Object.values(first.filed)
        .flat()
        .map((e) => e.rank),
    ).toEqual([low.rank]);
    const second = applyFilings(first.financials, first.filed, [middle], '2025-01-02');
    expect(second.outcomes).toEqual(['replaced']);
    expect(second.financials[0]!.profitability.ebit).toBe(120);
  });

  it('replace a period no filing brought, and work out a French start date from the final periods', () => {
    const fromJsonLines = belgian({ '9901': 1_00 }, '2023-12-31', '2024-01-01', 9).figures;
    const stored = applyFilings(
      [],
      {},
      [belgian({ '9901': 1_00 }, '2023-12-31', '2030-01-01', 9)],
      'x',
    ).financials;
    expect(fromJsonLines.profitability.ebit).toBe(1);
    // The same period without a record of the filing that brought it: any filing replaces it.
    const replaced = applyFilings(
      stored,
      {},
      [belgian({ '9901': 2_00 }, '2023-12-31', '2024-07-31', 1)],
      'x',
    );
    expect(replaced.outcomes).toEqual(['replaced']);
    expect(replaced.financials[0]!.profitability.ebit).toBe(2);
    expect(startAfter(undefined, '2024-02-29')).toBe('2023-03-01');
    expect(startAfter(undefined, '2023-06-30')).toBe('2022-07-01');
    expect(startAfter('2021-12-31', '2023-12-31')).toBe('2022-01-01');
  });
});
