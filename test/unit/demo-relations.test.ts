import { parseCompanyNumber } from '../../lib/companies/identifiers';
import { parseCompanyRecord } from '../../lib/companies/record';
import { deriveUpdates } from '../../lib/updates/derive';
import { generateDemoData } from '../fixtures/demo-data/companies';
import type { DemoRecord } from '../fixtures/demo-data/records';
import { DEMO_SNAPSHOT_DATE, olderSnapshotOf } from '../fixtures/demo-data/snapshots';
import {
  records,
  indexByKey,
  hasAtMostDecimals,
  sum,
  isPerson,
  isOurs,
  shareholdings,
  registered,
  isHolding,
} from '../support/demo-data-checks';

describe('demo shareholders', () => {
  test('percentages are 4-decimal shares in (0, 1] adding up to at most 1, in any order', () => {
    const wrong = records.filter(({ shareholders }) => {
      const shares = shareholders.map((s) => s.percentage);
      const largestFirst = [...shares].sort((a, b) => b - a);
      return (
        shares.some((p) => !(p > 0 && p <= 1) || !hasAtMostDecimals(p, 4)) ||
        sum(shares) > 1 ||
        sum(largestFirst) > 1
      );
    });
    expect(wrong).toEqual([]);
  });

  test('a registered holder is an earlier company of the data, under its exact name; never itself', () => {
    const wrong = registered.filter(({ index, holder }) => {
      const holderIndex = indexByKey.get(`${holder.country}#${holder.companyNumber}`);
      if (holderIndex === undefined) return !holder.companyNumber!.startsWith('01');
      return holderIndex >= index || records[holderIndex]!.name !== holder.name;
    });
    expect(wrong).toEqual([]);
  });

  test('a few holders are Belgian companies outside the data, with a valid number', () => {
    const outside = registered.filter(
      ({ holder }) => !indexByKey.has(`${holder.country}#${holder.companyNumber}`),
    );
    expect(outside.length).toBeGreaterThan(0);
    expect(outside.length).toBeLessThan(records.length * 0.01);
    expect(
      outside.filter(
        ({ holder }) => holder.country !== 'BE' || parseCompanyNumber('BE', holder.companyNumber) === null,
      ),
    ).toEqual([]);
  });

  test('holdings control subsidiaries (> 50 %), some across the border, several each', () => {
    const control = registered.filter(
      ({ holder }) => holder.percentage > 0.5 && indexByKey.has(`${holder.country}#${holder.companyNumber}`),
    );
    expect(control.length).toBeGreaterThan(300);
    const holders = control.map(
      ({ holder }) => records[indexByKey.get(`${holder.country}#${holder.companyNumber}`)!]!,
    );
    expect(holders.filter((h) => !isHolding(h))).toEqual([]);
    expect(
      control.filter(({ company, holder }) => company.country !== holder.country).length,
    ).toBeGreaterThan(20);
    const subsidiaries = new Map<DemoRecord, number>();
    for (const h of holders) subsidiaries.set(h, (subsidiaries.get(h) ?? 0) + 1);
    expect([...subsidiaries.values()].filter((n) => n >= 3).length).toBeGreaterThan(30);
    // Holdings themselves are held by families, and some by another holding (a chain).
    expect(control.filter(({ company }) => isHolding(company)).length).toBeGreaterThan(5);
  });

  test('joint ventures are held exactly 50 % (not control) and minority stakes exist', () => {
    expect(registered.filter(({ holder }) => holder.percentage === 0.5).length).toBeGreaterThan(50);
    expect(registered.filter(({ holder }) => holder.percentage < 0.5).length).toBeGreaterThan(50);
  });

  test('persons are named "First Last" with no country or number', () => {
    const persons = shareholdings.filter(({ holder }) => isPerson(holder));
    expect(persons.length).toBeGreaterThan(1000);
    expect(
      persons.filter(({ holder }) => !/^\S+ \S.*$/.test(holder.name) || holder.name.length > 60),
    ).toEqual([]);
    const wrong = shareholdings.filter(
      ({ holder }) =>
        !isPerson(holder) && (holder.country === undefined || holder.companyNumber === undefined),
    );
    expect(wrong).toEqual([]);
  });

  test('a few holders are German or Luxembourg companies, never resolved to ours', () => {
    const foreign = shareholdings.filter(({ holder }) => !isPerson(holder) && !isOurs(holder));
    expect(foreign.length).toBeGreaterThan(20);
    expect(foreign.length).toBeLessThan(records.length * 0.05);
    const wrong = foreign.filter(
      ({ holder: h }) =>
        !(h.country === 'DE' && /^HRB \d+$/.test(h.companyNumber!) && h.name.endsWith('GmbH')) &&
        !(h.country === 'LU' && /^B\d+$/.test(h.companyNumber!) && /(S\.A\.|S\.à r\.l\.)$/.test(h.name)),
    );
    expect(wrong).toEqual([]);
  });

  test('many companies have no known shareholders', () => {
    const without = records.filter((r) => r.shareholders.length === 0).length;
    expect(without).toBeGreaterThan(records.length * 0.15);
    expect(without).toBeLessThan(records.length * 0.5);
  });
});

describe('demo contacts', () => {
  test('0 to 6 contacts per company, ids positive, stable and unique across the data set', () => {
    expect(records.filter((r) => r.contacts.length > 6)).toEqual([]);
    const ids = records.flatMap((r) => r.contacts.map((c) => c.contactId));
    expect(ids.filter((id) => !Number.isSafeInteger(id) || id < 1)).toEqual([]);
    expect(new Set(ids).size).toBe(ids.length);
    expect(records.filter((r) => r.contacts.length === 0).length).toBeGreaterThan(100);
    expect(records.filter((r) => r.contacts.length >= 5).length).toBeGreaterThan(50);
  });

  test('contacts have a first and last name, distinct within the company, and a job title', () => {
    const wrong = records.filter((r) => {
      const names = r.contacts.map((c) => `${c.firstName} ${c.lastName}`);
      const titles = r.contacts.map((c) => c.jobTitle);
      return (
        new Set(names).size !== names.length ||
        new Set(titles).size !== titles.length ||
        r.contacts.some((c) => !c.firstName.trim() || !c.lastName.trim() || !c.jobTitle.trim())
      );
    });
    expect(wrong).toEqual([]);
  });

  test('the head of the company comes first, titled for the country and legal form', () => {
    const heads = records
      .filter((r) => r.contacts.length > 0)
      .map((r) => ({ r, title: r.contacts[0]!.jobTitle }));
    const expected = (r: DemoRecord): string[] => {
      switch (r.legalForm) {
        case 'BV':
        case 'CommV':
          return ['Zaakvoerder'];
        case 'NV':
          return ['Gedelegeerd bestuurder'];
        case 'SRL':
        case 'SARL':
        case 'EURL':
          return ['Gérant'];
        case 'SA':
          return [r.country === 'BE' ? 'Administrateur délégué' : 'Président-directeur général'];
        case 'SAS':
        case 'SASU':
          return ['Président', 'Directeur général'];
        case 'V.O.F.':
          return ['Vennoot'];
        default:
          return ['Directeur', 'Algemeen directeur'];
      }
    };
    expect(heads.filter(({ r, title }) => title !== 'CEO' && !expected(r).includes(title))).toEqual([]);
  });

  test('names fit the language area: Dutch surname particles are lower case after a first name', () => {
    const dutch = records.filter((r) => r.country === 'NL').flatMap((r) => r.contacts);
    expect(dutch.filter((c) => /^(De|Van|Ter) /.test(c.lastName))).toEqual([]);
    expect(dutch.filter((c) => /^(de|van|ter) /.test(c.lastName)).length).toBeGreaterThan(50);
    const flemish = records.filter((r) => r.country === 'BE').flatMap((r) => r.contacts);
    expect(flemish.filter((c) => /^(De|Van) /.test(c.lastName)).length).toBeGreaterThan(50);
    const french = records.filter((r) => r.country === 'FR').flatMap((r) => r.contacts);
    expect(french.filter((c) => /^(Jean|Marie|Nicolas|Nathalie)$/.test(c.firstName)).length).toBeGreaterThan(
      50,
    );
  });
});

describe('demo look-alikes', () => {
  test('families of companies share country, place, main activity and size band', () => {
    const band = (employees: number): number =>
      employees === 0 ? 0 : employees < 10 ? 1 : employees < 50 ? 2 : employees < 250 ? 3 : 4;
    const families = new Map<string, number>();
    for (const r of records) {
      const key = `${r.country}|${r.place}|${r.activities[0]}|${band(r.financials[0]!.people.employees!)}`;
      families.set(key, (families.get(key) ?? 0) + 1);
    }
    expect([...families.values()].filter((n) => n >= 3).length).toBeGreaterThan(50);
  });
});

describe('demo history: the older snapshot', () => {
  const older = olderSnapshotOf(records);
  const parse = (r: DemoRecord) => {
    const parsed = parseCompanyRecord(JSON.parse(JSON.stringify(r)));
    if (!parsed.ok) throw new Error(parsed.reason);
    return parsed.record;
  };
  const second = records.map((r, i) => deriveUpdates(parse(older[i]!), parse(r), '2026-11-21'));

  test('is what the generator streams for it, and valid for the import', () => {
    expect(generateDemoData({ companies: 300, snapshot: 'older' })).toEqual(older.slice(0, 300));
    expect(older.filter((r) => !parseCompanyRecord(JSON.parse(JSON.stringify(r))).ok)).toEqual([]);
  });

  test('holds the same companies, the periods received before its date, and people who left since', () => {
    const wrong = older.filter((r, i) => {
      const current = records[i]!;
      const kept = current.financials.filter((p) => p.dateReceived < DEMO_SNAPSHOT_DATE);
      return (
        r.companyNumber !== current.companyNumber ||
        JSON.stringify(r.financials) !== JSON.stringify(kept) ||
        JSON.stringify(r.contacts.slice(0, current.contacts.length)) !== JSON.stringify(current.contacts) ||
        JSON.stringify({ ...r, financials: [], contacts: [] }) !==
          JSON.stringify({ ...current, financials: [], contacts: [] })
      );
    });
    expect(wrong).toEqual([]);
  });

  test("leavers' contact ids are unique across both snapshots", () => {
    const ids = [...records, ...older].flatMap((r) => r.contacts.map((c) => c.contactId));
    expect(new Set(ids).size).toBe(new Set(older.flatMap((r) => r.contacts.map((c) => c.contactId))).size);
    const perCompany = older.map((r) => new Set(r.contacts.map((c) => `${c.firstName} ${c.lastName}`)).size);
    expect(perCompany).toEqual(older.map((r) => r.contacts.length));
  });

  test('then the current data derives every type of update, people leaving in every grammatical number', () => {
    const types = new Set(second.flat().map((u) => u.type));
    expect([...types].sort()).toEqual([
      'GROSS_MARGIN_GROWTH',
      'HEALTHDROP',
      'PEOPLE_LEFT',
      'PUBLISHED_FINANCIALS',
    ]);
    const counts = new Set(
      second.flat().flatMap((u) => (u.type === 'PEOPLE_LEFT' ? [Math.min(u.count, 5)] : [])),
    );
    expect([...counts].sort()).toEqual([1, 2, 3, 4, 5]);
    // Enough to see, few enough to keep `npm start` quick.
    const changed = second.filter((u) => u.length > 0).length;
    expect(changed).toBeGreaterThan(records.length * 0.1);
    expect(changed).toBeLessThan(records.length * 0.3);
  });
});
