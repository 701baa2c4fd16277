/** Updates (contract §8.2) as pure rules: what a change derives, every boundary, ids, order and titles. */
import { parseCompanyRecord, type CompanyRecord, type CompanyRecordInput } from '../../lib/companies/record';
import {
  byTimeThenId,
  deriveUpdates,
  updateId,
  type Update,
  type UpdateFacts,
} from '../../lib/updates/derive';
import { titleOf } from '../../lib/updates/titles';
import { companyRecord, period, type PeriodOverrides } from '../support/records';

const AS_OF = '2026-11-21';
const COMPANY = { country: 'BE', companyNumber: '0403170701' } as const;

function record(overrides: Partial<CompanyRecordInput> = {}): CompanyRecord {
  const parsed = parseCompanyRecord(companyRecord({ shareholders: [], contacts: [], ...overrides }));
  if (!parsed.ok) throw new Error(parsed.reason);
  return parsed.record;
}

const withPeriods = (...periods: Array<[number, PeriodOverrides?]>) =>
  record({ financials: periods.map(([year, overrides]) => period(year, overrides)) });

/** What the updates say, without ids, sorted for comparison. */
const facts = (updates: Update[]) =>
  updates
    .map(({ id: _id, ...rest }) => rest)
    .sort((a, b) => `${a.time}${a.type}`.localeCompare(`${b.time}${b.type}`));

const ofType = (updates: Update[], type: Update['type']) => updates.filter((u) => u.type === type);

const contact = (contactId: number, firstName: string, lastName: string) => ({
  contactId,
  firstName,
  lastName,
  jobTitle: 'Manager',
});

describe('PUBLISHED_FINANCIALS', () => {
  it("derives a company's whole history on its first import, each dated by its dateReceived", () => {
    const updates = deriveUpdates(null, withPeriods([2021], [2022], [2023]), AS_OF);
    expect(facts(ofType(updates, 'PUBLISHED_FINANCIALS'))).toEqual([
      { type: 'PUBLISHED_FINANCIALS', time: '2022-06-30', year: 2021 },
      { type: 'PUBLISHED_FINANCIALS', time: '2023-06-30', year: 2022 },
      { type: 'PUBLISHED_FINANCIALS', time: '2024-06-30', year: 2023 },
    ]);
  });

  it('derives only the period that was not there before', () => {
    const updates = deriveUpdates(withPeriods([2022], [2023]), withPeriods([2022], [2023], [2024]), AS_OF);
    expect(facts(updates)).toEqual([{ type: 'PUBLISHED_FINANCIALS', time: '2025-06-30', year: 2024 }]);
  });

  it('derives nothing from the same data again', () => {
    const data = withPeriods([2022, { healthIndicator: 8 }], [2023, { healthIndicator: 5 }]);
    expect(deriveUpdates(data, data, AS_OF)).toEqual([]);
  });

  it("derives nothing when a period's figures are corrected under the same endDate", () => {
    const before = withPeriods([2022], [2023]);
    const corrected = withPeriods([2022], [2023, { grossMargin: 900_000, healthIndicator: 1 }]);
    expect(deriveUpdates(before, corrected, AS_OF)).toEqual([]);
  });

  it('derives nothing when a period is removed', () => {
    expect(deriveUpdates(withPeriods([2021], [2022], [2023]), withPeriods([2021], [2023]), AS_OF)).toEqual(
      [],
    );
  });

  it('names the year of the endDate, also for a fiscal year ending mid-year', () => {
    const midYear = {
      ...period(2024),
      startDate: '2023-07-01',
      endDate: '2024-06-30',
      dateReceived: '2024-11-02',
    };
    const updates = deriveUpdates(null, record({ financials: [midYear] }), AS_OF);
    expect(facts(updates)).toEqual([{ type: 'PUBLISHED_FINANCIALS', time: '2024-11-02', year: 2024 }]);
  });
});

describe('GROSS_MARGIN_GROWTH', () => {
  const growth = (previous: number | null, next: number | null) =>
    ofType(
      deriveUpdates(
        withPeriods([2022, { grossMargin: previous }]),
        withPeriods([2022, { grossMargin: previous }], [2023, { grossMargin: next }]),
        AS_OF,
      ),
      'GROSS_MARGIN_GROWTH',
    );

  it('fires at exactly 10 %', () => {
    expect(facts(growth(100_000, 110_000))).toEqual([
      { type: 'GROSS_MARGIN_GROWTH', time: '2024-06-30', pct: 10 },
    ]);
  });

  it('fires at exactly 10 % where floating point would say 9.999…', () => {
    // (0.11 − 0.1) / 0.1 is 0.09999999999999995 in binary floating point.
    expect(facts(growth(0.1, 0.11))).toEqual([{ type: 'GROSS_MARGIN_GROWTH', time: '2024-06-30', pct: 10 }]);
    expect(facts(growth(1_000.1, 1_100.11))).toEqual([
      { type: 'GROSS_MARGIN_GROWTH', time: '2024-06-30', pct: 10 },
    ]);
  });

  it('does not fire at 9.99 %, which would round to 10', () => {
    expect(growth(100_000, 109_990)).toEqual([]);
    expect(growth(100_000, 109_999.99)).toEqual([]);
  });

  it('rounds the percentage to a whole number, half up', () => {
    expect(growth(100_000, 112_500)[0]).toMatchObject({ pct: 13 });
    expect(growth(100_000, 112_499.99)[0]).toMatchObject({ pct: 12 });
    expect(growth(100_000, 350_000)[0]).toMatchObject({ pct: 250 });
  });

  it('needs a positive previous gross margin', () => {
    expect(growth(0, 50_000)).toEqual([]);
    expect(growth(-10_000, 50_000)).toEqual([]);
    expect(growth(-10_000, -5_000)).toEqual([]);
  });

  it('needs both gross margins disclosed', () => {
    expect(growth(null, 50_000)).toEqual([]);
    expect(growth(50_000, null)).toEqual([]);
  });

  it('does not fire on a decline', () => {
    expect(growth(100_000, 90_000)).toEqual([]);
  });

  it('compares a period inserted between two others with the next older one', () => {
    const before = withPeriods([2021, { grossMargin: 100_000 }], [2023, { grossMargin: 100_000 }]);
    const after = withPeriods(
      [2021, { grossMargin: 100_000 }],
      [2022, { grossMargin: 120_000 }],
      [2023, { grossMargin: 100_000 }],
    );
    expect(facts(deriveUpdates(before, after, AS_OF))).toEqual([
      { type: 'GROSS_MARGIN_GROWTH', time: '2023-06-30', pct: 20 },
      { type: 'PUBLISHED_FINANCIALS', time: '2023-06-30', year: 2022 },
    ]);
  });

  it('compares each period of a first import with the one before it', () => {
    const updates = deriveUpdates(
      null,
      withPeriods(
        [2021, { grossMargin: 100_000 }],
        [2022, { grossMargin: 150_000 }],
        [2023, { grossMargin: 160_000 }],
      ),
      AS_OF,
    );
    expect(facts(ofType(updates, 'GROSS_MARGIN_GROWTH'))).toEqual([
      { type: 'GROSS_MARGIN_GROWTH', time: '2023-06-30', pct: 50 },
    ]);
  });

  it('gives an older new period no previous one when none is older', () => {
    const updates = deriveUpdates(
      withPeriods([2023, { grossMargin: 500_000, healthIndicator: 2 }]),
      withPeriods(
        [2022, { grossMargin: 100_000, healthIndicator: 9 }],
        [2023, { grossMargin: 500_000, healthIndicator: 2 }],
      ),
      AS_OF,
    );
    expect(facts(updates)).toEqual([{ type: 'PUBLISHED_FINANCIALS', time: '2023-06-30', year: 2022 }]);
  });
});

describe('HEALTHDROP', () => {
  const drop = (previous: number | null, next: number | null) =>
    ofType(
      deriveUpdates(
        withPeriods([2022, { healthIndicator: previous }]),
        withPeriods([2022, { healthIndicator: previous }], [2023, { healthIndicator: next }]),
        AS_OF,
      ),
      'HEALTHDROP',
    );

  it('fires with the drop in points when the new period is lower', () => {
    expect(facts(drop(7, 4))).toEqual([{ type: 'HEALTHDROP', time: '2024-06-30', drop: 3 }]);
    expect(facts(drop(10, 0))).toEqual([{ type: 'HEALTHDROP', time: '2024-06-30', drop: 10 }]);
    expect(drop(5, 4)[0]).toMatchObject({ drop: 1 });
  });

  it('does not fire when health stays or rises', () => {
    expect(drop(5, 5)).toEqual([]);
    expect(drop(4, 6)).toEqual([]);
  });

  it('needs both health indicators to be numbers (a filing may not disclose what the model needs)', () => {
    expect(drop(7, null)).toEqual([]);
    expect(drop(null, 2)).toEqual([]);
  });
});

describe('PEOPLE_LEFT', () => {
  const staff = [
    contact(1, 'Élodie', 'Dubois'),
    contact(2, 'an', 'peeters'),
    contact(3, 'Bram', 'Ångström'),
    contact(4, 'Zoë', 'de Vries'),
    contact(5, 'Anna', 'Peeters'),
    contact(6, 'Marc', 'Janssens'),
  ];
  const leaving = (ids: number[]) =>
    deriveUpdates(
      record({ contacts: staff }),
      record({ contacts: staff.filter((c) => !ids.includes(c.contactId)) }),
      AS_OF,
    );

  it('fires once for the people who disappeared, dated the day of the change', () => {
    const updates = leaving([2]);
    expect(facts(updates)).toEqual([{ type: 'PEOPLE_LEFT', time: AS_OF, names: ['an peeters'], count: 1 }]);
  });

  it('orders names by last then first name, ignoring case and accents, and names three', () => {
    const [update] = leaving([1, 2, 3, 4, 5]);
    // ångström, de vries, dubois, peeters (an), peeters (anna)
    expect(update).toMatchObject({ names: ['Bram Ångström', 'Zoë de Vries', 'Élodie Dubois'], count: 5 });
  });

  it('does not count a contact that stays under another name (same contactId)', () => {
    const renamed = staff.map((c) => (c.contactId === 6 ? { ...c, lastName: 'Janssen' } : c));
    expect(deriveUpdates(record({ contacts: staff }), record({ contacts: renamed }), AS_OF)).toEqual([]);
  });

  it('never fires on a first import', () => {
    expect(ofType(deriveUpdates(null, record({ contacts: staff }), AS_OF), 'PEOPLE_LEFT')).toEqual([]);
  });

  it('gives the same departure the same id, another day or another set another id', () => {
    const before = record({ contacts: staff });
    const after = record({ contacts: staff.slice(2) });
    const id = (asOf: string, next = after) => deriveUpdates(before, next, asOf)[0]!.id;
    expect(id(AS_OF)).toBe(id(AS_OF));
    expect(id(AS_OF)).not.toBe(id('2026-11-22'));
    expect(id(AS_OF)).not.toBe(id(AS_OF, record({ contacts: staff.slice(1) })));
  });
});

describe('ids', () => {
  it('are 19-digit numeric strings, the same for the same event', () => {
    const first = deriveUpdates(
      null,
      withPeriods([2022, { healthIndicator: 9 }], [2023, { healthIndicator: 3 }]),
      AS_OF,
    );
    const again = deriveUpdates(
      null,
      withPeriods([2022, { healthIndicator: 9 }], [2023, { healthIndicator: 3 }]),
      AS_OF,
    );
    expect(first.map((u) => u.id)).toEqual(again.map((u) => u.id));
    for (const { id } of first) expect(id).toMatch(/^[1-9]\d{18}$/);
    expect(new Set(first.map((u) => u.id)).size).toBe(first.length);
  });

  it('differ by company, type and period', () => {
    const ids = [
      updateId(COMPANY, 'PUBLISHED_FINANCIALS#2023-12-31'),
      updateId(COMPANY, 'HEALTHDROP#2023-12-31'),
      updateId(COMPANY, 'PUBLISHED_FINANCIALS#2022-12-31'),
      updateId({ country: 'NL', companyNumber: '33011433' }, 'PUBLISHED_FINANCIALS#2023-12-31'),
    ];
    expect(new Set(ids).size).toBe(4);
  });

  it('keep the id of a period that comes back after it was removed', () => {
    const [published] = deriveUpdates(withPeriods([2022]), withPeriods([2022], [2023]), AS_OF);
    const [again] = deriveUpdates(
      withPeriods([2022]),
      withPeriods([2022], [2023, { healthIndicator: 2 }]),
      AS_OF,
    );
    expect(again!.id).toBe(published!.id);
  });
});

describe('order', () => {
  it('is time descending, then id ascending compared as numbers', () => {
    const updates = [
      { id: '2000000000000000000', time: '2024-01-01' },
      { id: '9000000000000000000', time: '2025-01-01' },
      { id: '1000000000000000000', time: '2024-01-01' },
      { id: '100', time: '2024-01-01' },
    ];
    expect(updates.sort(byTimeThenId).map((u) => u.id)).toEqual([
      '9000000000000000000',
      '100',
      '1000000000000000000',
      '2000000000000000000',
    ]);
  });
});

describe('titles', () => {
  const people = (count: number): UpdateFacts => ({
    type: 'PEOPLE_LEFT',
    names: ['An Peeters', 'Bram Janssens', 'Chloé Dubois'].slice(0, Math.min(count, 3)),
    count,
  });

  it.each([
    ['en', 'Financials were published for 2023', 'Gross margin grew by 12%', 'Health dropped by 3'],
    ['nl', 'Jaarrekening gepubliceerd voor 2023', 'Brutomarge steeg met 12%', 'Gezondheid daalde met 3'],
    [
      'fr',
      'Comptes annuels publiés pour 2023',
      'La marge brute a augmenté de 12 %',
      'La santé a baissé de 3',
    ],
  ] as const)('%s: financial updates', (language, published, growth, drop) => {
    expect(titleOf({ type: 'PUBLISHED_FINANCIALS', year: 2023 }, language)).toBe(published);
    expect(titleOf({ type: 'GROSS_MARGIN_GROWTH', pct: 12 }, language)).toBe(growth);
    expect(titleOf({ type: 'HEALTHDROP', drop: 3 }, language)).toBe(drop);
  });

  it.each([
    [1, 'en', 'An Peeters left the company'],
    [2, 'en', 'An Peeters and Bram Janssens left the company'],
    [3, 'en', 'An Peeters, Bram Janssens and Chloé Dubois left the company'],
    [4, 'en', 'An Peeters, Bram Janssens, Chloé Dubois and 1 other left the company'],
    [5, 'en', 'An Peeters, Bram Janssens, Chloé Dubois and 2 others left the company'],
    [12, 'en', 'An Peeters, Bram Janssens, Chloé Dubois and 9 others left the company'],
    [1, 'nl', 'An Peeters heeft het bedrijf verlaten'],
    [2, 'nl', 'An Peeters en Bram Janssens hebben het bedrijf verlaten'],
    [3, 'nl', 'An Peeters, Bram Janssens en Chloé Dubois hebben het bedrijf verlaten'],
    [4, 'nl', 'An Peeters, Bram Janssens, Chloé Dubois en 1 andere hebben het bedrijf verlaten'],
    [5, 'nl', 'An Peeters, Bram Janssens, Chloé Dubois en 2 anderen hebben het bedrijf verlaten'],
    [1, 'fr', "An Peeters a quitté l'entreprise"],
    [2, 'fr', "An Peeters et Bram Janssens ont quitté l'entreprise"],
    [3, 'fr', "An Peeters, Bram Janssens et Chloé Dubois ont quitté l'entreprise"],
    [4, 'fr', "An Peeters, Bram Janssens, Chloé Dubois et 1 autre ont quitté l'entreprise"],
    [5, 'fr', "An Peeters, Bram Janssens, Chloé Dubois et 2 autres ont quitté l'entreprise"],
  ] as const)('%i people left, %s', (count, language, title) => {
    expect(titleOf(people(count), language)).toBe(title);
  });

  it('builds PEOPLE_LEFT titles from derived updates', () => {
    const staff = [
      contact(1, 'An', 'Peeters'),
      contact(2, 'Bram', 'Janssens'),
      contact(3, 'Chloé', 'Dubois'),
      contact(4, 'Dirk', 'Aerts'),
    ];
    const [update] = deriveUpdates(record({ contacts: staff }), record({ contacts: [] }), AS_OF);
    expect(titleOf(update!, 'en')).toBe(
      'Dirk Aerts, Chloé Dubois, Bram Janssens and 1 other left the company',
    );
  });
});
