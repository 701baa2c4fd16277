import { COUNTRIES, frenchVatKey, parseCompanyNumber } from '../../lib/companies/identifiers';
import { parseCompanyRecord } from '../../lib/companies/record';
import {
  DEFAULT_DEMO_COMPANIES,
  demoRecords,
  generateDemoData,
  pickExamples,
} from '../fixtures/demo-data/companies';
import type { DemoRecord } from '../fixtures/demo-data/records';
import { RECORD_KEYS } from '../support/contract';
import {
  records,
  indexByKey,
  LEGAL_FORMS,
  NACE_CODES,
  chronological,
  utc,
  isOurs,
} from '../support/demo-data-checks';

describe('demo data generation', () => {
  test('the same seed and count give byte-identical JSON', () => {
    expect(JSON.stringify(generateDemoData({ seed: 7, companies: 300 }))).toBe(
      JSON.stringify(generateDemoData({ seed: 7, companies: 300 })),
    );
    expect(JSON.stringify(generateDemoData())).toBe(JSON.stringify(records));
  });

  test('different seeds give different companies', () => {
    const a = generateDemoData({ seed: 1, companies: 30 });
    const b = generateDemoData({ seed: 2, companies: 30 });
    expect(a.filter((r, i) => r.companyNumber === b[i]!.companyNumber)).toEqual([]);
    expect(a.filter((r, i) => r.name === b[i]!.name).length).toBeLessThan(5);
  });

  test('a smaller count gives a prefix of the larger data set, holdings and contacts included', () => {
    expect(generateDemoData({ companies: 50 })).toEqual(records.slice(0, 50));
    expect(generateDemoData({ seed: 7, companies: 100 })).toEqual(
      generateDemoData({ seed: 7, companies: 300 }).slice(0, 100),
    );
  });

  test('demoRecords is lazy and yields what generateDemoData returns', () => {
    // Three million companies would take minutes: taking the first ten proves nothing else is generated.
    const lazy = demoRecords({ companies: 3_000_000 });
    const first: DemoRecord[] = [];
    for (const record of lazy) {
      first.push(record);
      if (first.length === 10) break;
    }
    expect(first).toEqual(records.slice(0, 10));
  });

  test('a count or seed that is not an integer in range is rejected at the call', () => {
    expect(() => demoRecords({ companies: -1 })).toThrow(RangeError);
    expect(() => demoRecords({ companies: 1.5 })).toThrow(RangeError);
    expect(() => demoRecords({ companies: 3_000_001 })).toThrow(RangeError);
    expect(() => generateDemoData({ seed: 0.5 })).toThrow(RangeError);
    expect(generateDemoData({ companies: 0 })).toEqual([]);
  });
});

describe('demo company records', () => {
  test('every record passes the import validation and is already canonical', () => {
    const rejected = records
      .map((r) => ({ r, parsed: parseCompanyRecord(JSON.parse(JSON.stringify(r))) }))
      .filter(({ r, parsed }) => !parsed.ok || parsed.record.companyNumber !== r.companyNumber)
      .map(({ r, parsed }) => ({
        company: r.companyNumber,
        reason: parsed.ok ? 'not canonical' : parsed.reason,
      }));
    expect(rejected).toEqual([]);
  });

  test('a sample of 30,000 companies passes the validation and every holder it names is in it', () => {
    const names = new Map<string, string>();
    const problems: string[] = [];
    let index = 0;
    for (const record of demoRecords({ companies: 30_000 })) {
      if (index % 7 === 0) {
        const parsed = parseCompanyRecord(record);
        if (!parsed.ok) problems.push(`${record.companyNumber}: ${parsed.reason}`);
      }
      for (const holder of record.shareholders.filter(isOurs)) {
        const name = names.get(`${holder.country}#${holder.companyNumber}`);
        if (name === undefined ? !holder.companyNumber!.startsWith('01') : name !== holder.name)
          problems.push(`${record.companyNumber}: holder ${holder.companyNumber} ${holder.name}`);
      }
      names.set(`${record.country}#${record.companyNumber}`, record.name);
      index++;
    }
    expect(problems).toEqual([]);
    expect(names.size).toBe(30_000);
  });

  test('records have every field of the contract, in its order', () => {
    expect(records.filter((r) => JSON.stringify(Object.keys(r)) !== JSON.stringify(RECORD_KEYS))).toEqual([]);
  });

  test('the default count is 3000, spread evenly over BE, NL and FR', () => {
    expect(DEFAULT_DEMO_COMPANIES).toBe(3000);
    expect(records).toHaveLength(3000);
    for (const country of COUNTRIES) {
      expect(records.filter((r) => r.country === country)).toHaveLength(1000);
    }
  });

  test('every company number is canonical, valid for its country and unique', () => {
    expect(records.filter((r) => parseCompanyNumber(r.country, r.companyNumber) !== r.companyNumber)).toEqual(
      [],
    );
    expect(indexByKey.size).toBe(records.length);
  });

  test('VAT numbers follow the country format and match the company number', () => {
    const wrong = records.filter(({ country, companyNumber, vatNumber }) => {
      switch (country) {
        case 'BE':
          return vatNumber !== `BE${companyNumber}`;
        case 'NL':
          return !/^NL\d{9}B01$/.test(vatNumber);
        case 'FR':
          return vatNumber !== `FR${String(frenchVatKey(companyNumber)).padStart(2, '0')}${companyNumber}`;
      }
    });
    expect(wrong).toEqual([]);
  });

  test('legal forms are typical of the country, names end in them and are mostly unique', () => {
    const wrong = records.filter((r) => {
      const forms: readonly string[] = LEGAL_FORMS[r.country];
      return (
        !forms.includes(r.legalForm) ||
        !r.name.endsWith(` ${r.legalForm}`) ||
        r.name.length < r.legalForm.length + 5
      );
    });
    expect(wrong).toEqual([]);
    expect(new Set(records.map((r) => r.name)).size).toBeGreaterThan(records.length * 0.95);
    for (const country of COUNTRIES) {
      expect(
        new Set(records.filter((r) => r.country === country).map((r) => r.legalForm)).size,
      ).toBeGreaterThanOrEqual(3);
    }
  });

  test('every company has a place, from at least 14 towns per country', () => {
    for (const country of COUNTRIES) {
      const places = records.filter((r) => r.country === country).map((r) => r.place);
      expect(places.filter((p) => p.trim() === '')).toEqual([]);
      expect(new Set(places).size).toBeGreaterThanOrEqual(14);
    }
  });

  test('most companies have a lowercase https website on the country domain', () => {
    const withoutSite = records.filter((r) => r.website === null).length;
    expect(withoutSite).toBeGreaterThan(records.length * 0.05);
    expect(withoutSite).toBeLessThan(records.length * 0.2);
    const wrong = records.filter(
      (r) =>
        r.website !== null &&
        !new RegExp(`^https://www\\.[a-z0-9]+(-[a-z0-9]+)*\\.${r.country.toLowerCase()}$`).test(r.website),
    );
    expect(wrong).toEqual([]);
  });

  test('companies are founded before their first period, some just before, some decades before', () => {
    expect(records.filter((r) => !(r.foundedOn < chronological(r)[0]!.startDate))).toEqual([]);
    const yearsBefore = records.map(
      (r) => utc(chronological(r)[0]!.startDate).getUTCFullYear() - utc(r.foundedOn).getUTCFullYear(),
    );
    expect(yearsBefore.filter((y) => y <= 1).length).toBeGreaterThan(records.length * 0.2);
    expect(yearsBefore.filter((y) => y >= 20).length).toBeGreaterThan(records.length * 0.1);
  });

  test('Belgian numbers starting with 1 belong to companies founded since 2023', () => {
    const wrong = records.filter(
      (r) => r.country === 'BE' && r.companyNumber.startsWith('1') !== r.foundedOn >= '2023-01-01',
    );
    expect(wrong).toEqual([]);
  });

  test('pickExamples returns the first company with at least 5 periods for each country', () => {
    const examples = pickExamples(records);
    expect(examples.map((r) => r.country)).toEqual(['BE', 'NL', 'FR']);
    for (const example of examples) {
      expect(example).toBe(records.find((r) => r.country === example.country && r.financials.length >= 5));
    }
  });
});

describe('demo activities', () => {
  test('1 to 3 distinct NACE-BEL codes per company, all known subclasses', () => {
    const wrong = records.filter(
      ({ activities }) =>
        activities.length < 1 ||
        activities.length > 3 ||
        new Set(activities).size !== activities.length ||
        activities.some((code) => !NACE_CODES.has(code)),
    );
    expect(wrong).toEqual([]);
  });

  test('the main activity fits the name', () => {
    const fits: [RegExp, RegExp][] = [
      [/\b(Bouwbedrijf|Aannemingen|Construction|Bâtiment)\b/, /^4[13]/],
      [/\b(Bakkerij|Boulangerie)\b/, /^(10712|47241)$/],
      [/\b(Restaurant|Bistrot)\b/, /^56/],
      [/\b(Software|Informatique|ICT)\b/, /^6[23]/],
      [/\b(Transport|Transports|Logistics|Logistique)\b/, /^(49|52)/],
      [/\b(Groothandel|Négoce|Trading)\b/, /^46/],
      [/\b(Hotel|Hôtel)\b/, /^55/],
      [/\b(Vastgoed|Immobilier|Immobilière)\b/, /^(68|41)/],
      [/\b(Holding|Participations)\b/, /^70100$/],
    ];
    for (const [name, code] of fits) {
      const named = records.filter((r) => name.test(r.name));
      expect(named.length).toBeGreaterThan(10);
      expect(
        named.filter((r) => !code.test(r.activities[0]!)).map((r) => `${r.name}: ${r.activities[0]}`),
      ).toEqual([]);
    }
  });
});
