/** Relationships (contract §6.2) as pure rules: one holding per holder, both sides' entries and their order. */
import type { StoredRelationships } from '../../lib/companies/holdings-store';
import { holdersOf, relationshipsOf } from '../../lib/companies/relationships';
import { parseCompanyRecord, type CompanyRecordInput } from '../../lib/companies/record';
import { companyRecord } from '../support/records';

const HOLDING = { country: 'BE', companyNumber: '0400000185' } as const;
const OTHER = { country: 'NL', companyNumber: '33011433' } as const;
const FRENCH = { country: 'FR', companyNumber: '552100554' } as const;

function record(overrides: Partial<CompanyRecordInput>) {
  const parsed = parseCompanyRecord(companyRecord({ contacts: [], ...overrides }));
  if (!parsed.ok) throw new Error(parsed.reason);
  return parsed.record;
}

const company = (ref: { country: 'BE' | 'NL' | 'FR'; companyNumber: string }, name: string) => ({
  ...ref,
  name,
  place: 'Gent',
});

const stored = (overrides: Partial<StoredRelationships>): StoredRelationships => ({
  company: company({ country: 'BE', companyNumber: '0403170701' }, 'Acme Bouw NV'),
  legalEntityId: '123456789012',
  parents: [],
  registeredHolders: new Map(),
  children: [],
  ...overrides,
});

describe('holders of a record', () => {
  it('makes one holding of two entries naming the same company, adding their percentages', () => {
    const holders = holdersOf(
      record({
        shareholders: [
          { country: 'BE', companyNumber: '0400.000.185', name: 'Acme Holding NV', percentage: 0.2 },
          { name: 'Jan Peeters', percentage: 0.3 },
          { country: 'be', companyNumber: 'BE0400000185', name: 'Acme Holding', percentage: 0.1 },
        ],
      }),
    );
    expect(holders).toEqual([
      { company: null, name: 'Jan Peeters', percentage: 0.3, function: 'SHAREHOLDER' },
      { company: HOLDING, name: 'Acme Holding NV', percentage: 0.3, function: 'SHAREHOLDER' },
    ]);
  });

  it('keeps people and foreign holders as names only, and has none for a new company', () => {
    const holders = holdersOf(
      record({
        shareholders: [
          { name: 'Global Fund LP', country: 'US', companyNumber: '12-3456789', percentage: 0.4 },
          { name: 'An Peeters', percentage: 0.4 },
        ],
      }),
    );
    expect(holders.map((h) => h.company)).toEqual([null, null]);
    expect(holdersOf(null)).toEqual([]);
  });
});

describe('relationships of a company', () => {
  it('shows a registered holder under its registered name, any other holder as identifier null alone', () => {
    const answer = relationshipsOf(
      stored({
        parents: [
          { company: HOLDING, name: 'Holding as given', percentage: 0.6, function: 'SHAREHOLDER' },
          { company: OTHER, name: 'Not imported BV', percentage: 0.3, function: 'SHAREHOLDER' },
          { company: null, name: 'Jan Peeters', percentage: 0.1, function: 'SHAREHOLDER' },
        ],
        registeredHolders: new Map([['BE#0400000185', company(HOLDING, 'Acme Holding NV')]]),
      }),
    );
    expect(answer.parents).toEqual([
      {
        identifier: { country: 'BE', companyNumber: '0400000185', name: 'Acme Holding NV', place: 'Gent' },
        function: 'SHAREHOLDER',
        percentage: 0.6,
        name: 'Acme Holding NV',
      },
      { identifier: null },
      { identifier: null },
    ]);
    expect(Object.keys(answer.parents[0]!)).toEqual(['identifier', 'function', 'percentage', 'name']);
  });

  it('orders by percentage descending, then name, then country and number; unknown holders by their given name', () => {
    const answer = relationshipsOf(
      stored({
        parents: [
          { company: null, name: 'Zeno', percentage: 0.2, function: 'SHAREHOLDER' },
          { company: HOLDING, name: 'x', percentage: 0.2, function: 'SHAREHOLDER' },
          { company: null, name: 'Anna', percentage: 0.2, function: 'SHAREHOLDER' },
          { company: null, name: 'Bob', percentage: 0.4, function: 'SHAREHOLDER' },
        ],
        registeredHolders: new Map([['BE#0400000185', company(HOLDING, 'Mid NV')]]),
        children: [
          { ...company(FRENCH, 'Same SA'), percentage: 0.3, function: 'SHAREHOLDER', legalEntityId: '1' },
          { ...company(OTHER, 'Same SA'), percentage: 0.3, function: 'SHAREHOLDER', legalEntityId: '2' },
          { ...company(HOLDING, 'Big NV'), percentage: 0.9, function: 'SHAREHOLDER', legalEntityId: '3' },
        ],
      }),
    );
    expect(answer.parents.map((p) => (p.identifier ? p.identifier.name : null))).toEqual([
      null,
      null,
      'Mid NV',
      null,
    ]);
    expect(answer.children.map((c) => c.identifier && c.identifier.country)).toEqual(['BE', 'FR', 'NL']);
  });

  it('shows a held company with the percentage the holder has, seen from the holder', () => {
    const answer = relationshipsOf(
      stored({
        children: [
          { ...company(OTHER, 'Dochter BV'), percentage: 0.15, function: 'SHAREHOLDER', legalEntityId: '9' },
        ],
      }),
    );
    expect(answer).toEqual({
      parents: [],
      children: [
        {
          identifier: { country: 'NL', companyNumber: '33011433', name: 'Dochter BV', place: 'Gent' },
          function: 'SHAREHOLDER',
          percentage: 0.15,
          name: 'Dochter BV',
        },
      ],
    });
  });
});
