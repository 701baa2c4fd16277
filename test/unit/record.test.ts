/** The company record (contract §11.1): what the import accepts, what it rejects and why, and its canonical form. */
import { createHash } from 'node:crypto';
import { parseCompanyRecord, recordHash, type CompanyRecord } from '../../lib/companies/record';
import { PERIOD_KEYS } from '../support/contract';
import { companyRecord, period } from '../support/records';

const accepted = (input: unknown): CompanyRecord => {
  const result = parseCompanyRecord(input);
  if (!result.ok) throw new Error(`rejected: ${result.reason}`);
  return result.record;
};
const reason = (input: unknown): string => {
  const result = parseCompanyRecord(input);
  if (result.ok) throw new Error('accepted');
  return result.reason;
};

describe('parseCompanyRecord', () => {
  it('accepts the contract example and stores the number canonical, periods newest first', () => {
    const record = accepted(companyRecord());
    expect(record.companyNumber).toBe('0403170701');
    expect(record.financials.map((p) => p.endDate)).toEqual(['2023-12-31', '2022-12-31']);
    expect(record.activities).toEqual(['41201', '4399']);
    expect(record.shareholders[0]).toEqual({
      company: { country: 'BE', companyNumber: '0400000185' },
      name: 'Acme Holding NV',
      percentage: 0.6,
      function: 'SHAREHOLDER',
    });
    expect(record.shareholders[1]!.company).toBeNull();
  });

  it('keeps the contract key order of a period and drops unknown fields', () => {
    const input = companyRecord();
    const [first] = input.financials as object[];
    (first as Record<string, unknown>)['operatingProfit'] = 12;
    const stored = accepted(input).financials[1]!;
    expect(Object.keys(stored)).toEqual([...PERIOD_KEYS.period]);
    expect(Object.keys(stored.profitability)).toEqual([...PERIOD_KEYS.profitability]);
  });

  it('treats left-out sections as empty and optional strings as null', () => {
    const record = accepted({ country: 'nl', companyNumber: '3301 1433', name: 'Bakker B.V.' });
    expect(record).toMatchObject({ country: 'NL', companyNumber: '33011433', place: null, website: null });
    expect([record.financials, record.shareholders, record.contacts, record.activities]).toEqual([
      [],
      [],
      [],
      [],
    ]);
  });

  it('gives the same hash for the same data in another order', () => {
    const a = companyRecord();
    const b = companyRecord({
      financials: [...(a.financials as object[])].reverse() as CompanyRecord['financials'],
      shareholders: [...(a.shareholders as object[])].reverse() as never,
    });
    expect(recordHash(accepted(a))).toBe(recordHash(accepted(b)));
    expect(recordHash(accepted(a))).not.toBe(recordHash(accepted(companyRecord({ name: 'Other NV' }))));
  });

  it.each([
    ['not an object', [], 'record must be a JSON object'],
    ['no name', companyRecord({ name: undefined as never }), 'name is required'],
    ['an empty name', companyRecord({ name: ' ' }), 'name must not be empty'],
    ['a name that is a number', companyRecord({ name: 7 as never }), 'name must be a string'],
    ['a bad country', companyRecord({ country: 'DE' }), 'country DE is not BE, NL or FR'],
    [
      'a bad number',
      companyRecord({ companyNumber: '0403170702' }),
      'companyNumber 0403170702 is not a valid BE company number (its format or check digits)',
    ],
    [
      'an FR VAT number with a wrong check key',
      companyRecord({ vatNumber: 'FR12552100554' }),
      'vatNumber FR12552100554 has a wrong check key',
    ],
    ['a bad date', companyRecord({ foundedOn: '1998-02-30' }), 'foundedOn must be a date that exists'],
    [
      'a bad NACE code',
      companyRecord({ activities: ['6'] }),
      'activities[0] must be a NACE code of 2 to 5 digits',
    ],
    [
      'two periods with one end date',
      companyRecord({ financials: [period(2023), period(2023)] }),
      'financials[1].endDate 2023-12-31 appears twice',
    ],
    [
      'a percentage over 1',
      companyRecord({ shareholders: [{ name: 'X', percentage: 1.5 }] }),
      'shareholders[0].percentage must be ≤ 1',
    ],
    [
      'percentages adding up over 1',
      companyRecord({
        shareholders: [
          { name: 'X', percentage: 0.7 },
          { name: 'Y', percentage: 0.4 },
        ],
      }),
      "shareholders' percentages add up to 1.1, more than 1",
    ],
    [
      'a shareholder with a bad number',
      companyRecord({ shareholders: [{ country: 'FR', companyNumber: '123', name: 'X', percentage: 0.5 }] }),
      'shareholders[0].companyNumber 123 is not a valid FR company number (its format or check digits)',
    ],
    [
      'a company holding itself',
      companyRecord({
        shareholders: [{ country: 'BE', companyNumber: '0403170701', name: 'X', percentage: 0.5 }],
      }),
      'shareholders[0] is the company itself: a company cannot hold its own shares',
    ],
    [
      'a contact id twice',
      companyRecord({
        contacts: [
          { contactId: 1, firstName: 'A', lastName: 'B' },
          { contactId: 1, firstName: 'C', lastName: 'D' },
        ],
      }),
      'contacts[1].contactId 1 appears twice',
    ],
    [
      'a contact id of 0',
      companyRecord({ contacts: [{ contactId: 0, firstName: 'A', lastName: 'B' }] }),
      'contacts[0].contactId must be a positive integer',
    ],
    [
      '51 periods',
      companyRecord({ financials: Array.from({ length: 51 }, (_, i) => period(1970 + i)) }),
      'financials must hold at most 50 periods',
    ],
  ])('rejects %s', (_what, input, expected) => {
    expect(reason(input)).toBe(expected);
  });

  it('checks the key of a French VAT number, and only where there is a numeric key', () => {
    for (const vatNumber of ['FR96552100554', 'fr 96 552 100 554', 'FRAB552100554', 'NL001234567B01', null])
      accepted(companyRecord({ vatNumber }));
    expect(reason(companyRecord({ vatNumber: 'FR 97 552 100 554' }))).toBe(
      'vatNumber FR 97 552 100 554 has a wrong check key',
    );
  });

  describe('rejects figures that do not hang together', () => {
    const withPeriod = (change: (p: ReturnType<typeof period>) => void) => {
      const p = period(2023);
      change(p);
      return companyRecord({ financials: [p] });
    };
    it.each([
      [
        'equity + debt ≠ totalAssets',
        (p: ReturnType<typeof period>) => void (p.solvency.equity = 300_000.01),
        'equity + debt must equal totalAssets',
      ],
      [
        'debt ≠ long + short term',
        (p: ReturnType<typeof period>) => void (p.solvency.longTermDebt = 390_000),
        'debt must equal longTermDebt + shortTermDebt',
      ],
      [
        'financial parts over their total',
        (p: ReturnType<typeof period>) => void (p.solvency.shortTermDebtFinancial = 60_000),
        'shortTermDebtFinancial + shortTermDebtAccountsPayable must not exceed shortTermDebt',
      ],
      [
        'ebitda below ebit',
        (p: ReturnType<typeof period>) => void (p.profitability.ebit = 130_000),
        'ebitda must be ≥ ebit',
      ],
      [
        'working capital that does not give cash',
        (p: ReturnType<typeof period>) => void (p.liquidity.cash = 49_000),
        'netWorkingCapital − netWorkingCapitalRequirement must equal cash',
      ],
      [
        'gender ratios not adding up to 1',
        (p: ReturnType<typeof period>) => void (p.people.employeeMaleRatio = 0.6),
        'employeeMaleRatio + employeeFemaleRatio must equal 1',
      ],
      [
        'three decimals in an amount',
        (p: ReturnType<typeof period>) => void (p.profitability.netProfit = 1.005),
        'financials[0].profitability.netProfit must have at most 2 decimals',
      ],
      [
        'a negative revenue',
        (p: ReturnType<typeof period>) => void (p.profitability.revenue = -1),
        'financials[0].profitability.revenue must be ≥ 0',
      ],
      [
        'a left-out section',
        (p: ReturnType<typeof period>) => void delete (p as Partial<typeof p>).people,
        'financials[0].people is required',
      ],
      [
        'a section of the wrong type',
        (p: ReturnType<typeof period>) => void ((p as Record<string, unknown>).people = 'many'),
        'financials[0].people must be an object',
      ],
      [
        'a left-out figure',
        (p: ReturnType<typeof period>) => void delete (p.solvency as Partial<typeof p.solvency>).capital,
        'financials[0].solvency.capital is required',
      ],
    ])('%s', (_what, change, expected) => {
      expect(reason(withPeriod(change))).toContain(expected);
    });

    it('checks only what is disclosed: null figures never fail an identity', () => {
      accepted(
        withPeriod((p) => {
          p.solvency.equity = null;
          p.liquidity.cash = null;
          p.profitability.revenue = null;
        }),
      );
    });
  });
});

describe('otherNames (ext, §6.5, §11.1)', () => {
  it("keeps the source's order without the registered name and without repeats (trimmed, any case)", () => {
    const record = accepted({
      ...companyRecord(),
      name: 'Acme Bouw NV',
      otherNames: [
        ' ACME BOUW NV ',
        'Acme Construction SA',
        'AB',
        'ab',
        'Acme construction sa',
        'Acme Bau AG',
      ],
    });
    expect(record.otherNames).toEqual(['Acme Construction SA', 'AB', 'Acme Bau AG']);
  });

  it('is [] when absent or null, and a record without other names hashes as one without the key', () => {
    const without = accepted(companyRecord());
    expect(without.otherNames).toEqual([]);
    expect(accepted({ ...companyRecord(), otherNames: null }).otherNames).toEqual([]);
    const rest: Partial<CompanyRecord> = { ...without };
    delete rest.otherNames;
    expect(recordHash(without)).toBe(createHash('sha256').update(JSON.stringify(rest)).digest('base64url'));
    expect(recordHash(accepted({ ...companyRecord(), otherNames: ['AB'] }))).not.toBe(recordHash(without));
  });

  it('rejects more than 20 names, an empty one and a name that is not a string', () => {
    expect(reason({ ...companyRecord(), otherNames: Array.from({ length: 21 }, (_, i) => `N${i}`) })).toBe(
      'otherNames must hold at most 20 names',
    );
    expect(reason({ ...companyRecord(), otherNames: ['AB', ' '] })).toBe('otherNames[1] must not be empty');
    expect(reason({ ...companyRecord(), otherNames: [12] })).toBe('otherNames[0] must be a string');
  });

  it("keeps an address's country only when the seat is abroad", () => {
    const abroad = accepted({
      ...companyRecord(),
      address: { street: 'Rue X', place: 'Paris', country: 'fr' },
    });
    expect(abroad.address).toEqual({
      street: 'Rue X',
      number: null,
      box: null,
      postalCode: null,
      place: 'Paris',
      country: 'FR',
    });
    const home = accepted({ ...companyRecord(), address: { street: 'Kerkstraat', country: 'BE' } });
    expect(home.address).not.toHaveProperty('country');
  });
});
