/** (ext) NAME_CHANGED, MOVED and STOPPED (contract §8.2) as pure rules: when each fires, dates, ids, titles. */
import { parseCompanyRecord, type CompanyRecord, type CompanyRecordInput } from '../../lib/companies/record';
import { deriveUpdates, updateId, type Update } from '../../lib/updates/derive';
import { titleOf } from '../../lib/updates/titles';
import { companyRecord } from '../support/records';

const AS_OF = '2026-11-21';
const COMPANY = { country: 'BE', companyNumber: '0403170701' } as const;
const ADDRESS = { street: 'Kerkstraat', number: '12', box: null, postalCode: '9000', place: 'Gent' };

function record(overrides: Partial<CompanyRecordInput> = {}): CompanyRecord {
  const parsed = parseCompanyRecord(
    companyRecord({
      name: 'Acme Bouw NV',
      financials: [],
      shareholders: [],
      contacts: [],
      address: ADDRESS,
      ...overrides,
    }),
  );
  if (!parsed.ok) throw new Error(parsed.reason);
  return parsed.record;
}

const registryOnly = (updates: Update[]) =>
  updates
    .filter((u) => ['NAME_CHANGED', 'MOVED', 'STOPPED'].includes(u.type))
    .map(({ id: _id, ...rest }) => rest);

describe('NAME_CHANGED', () => {
  test('fires when the registered name changes, dated the day of the change, with both names as registered', () => {
    const updates = deriveUpdates(record(), record({ name: 'Acme Renovatie BV' }), AS_OF);
    expect(registryOnly(updates)).toEqual([
      { type: 'NAME_CHANGED', old: 'Acme Bouw NV', new: 'Acme Renovatie BV', time: AS_OF },
    ]);
    expect(updates[0]!.id).toBe(updateId(COMPANY, `NAME_CHANGED#${AS_OF}#Acme Renovatie BV`));
  });

  test.each([['ACME BOUW NV'], ['Acmé-Bouw'], ['Acme Bouw BV'], ['acme bouw']])(
    'compares names as search does: %s is no change',
    (name) => {
      expect(registryOnly(deriveUpdates(record(), record({ name }), AS_OF))).toEqual([]);
    },
  );

  test('other names changing alone derive nothing', () => {
    expect(deriveUpdates(record(), record({ otherNames: ['AB'] }), AS_OF)).toEqual([]);
  });
});

describe('MOVED', () => {
  test('fires when a part of the registered address changes, with the new place', () => {
    const after = record({ address: { ...ADDRESS, street: 'Veldstraat', number: '3' } });
    expect(registryOnly(deriveUpdates(record(), after, AS_OF))).toEqual([
      { type: 'MOVED', place: 'Gent', time: AS_OF },
    ]);
    const elsewhere = record({ address: { ...ADDRESS, postalCode: '9300', place: 'Aalst' } });
    expect(registryOnly(deriveUpdates(record(), elsewhere, AS_OF))).toEqual([
      { type: 'MOVED', place: 'Aalst', time: AS_OF },
    ]);
  });

  test('takes the postal code when the new address has no place', () => {
    const after = record({ address: { street: 'Veldstraat', postalCode: '9300' } });
    expect(registryOnly(deriveUpdates(record({ place: null }), { ...after, place: null }, AS_OF))).toEqual([
      { type: 'MOVED', place: '9300', time: AS_OF },
    ]);
  });

  test('needs a street or postal code before and after; a part that becomes withheld is no move', () => {
    const placeOnly = record({ address: { place: 'Gent' } });
    expect(registryOnly(deriveUpdates(placeOnly, record(), AS_OF))).toEqual([]);
    expect(registryOnly(deriveUpdates(record(), placeOnly, AS_OF))).toEqual([]);
    expect(registryOnly(deriveUpdates(record({ address: null }), record(), AS_OF))).toEqual([]);
    const withheld = record({ address: { ...ADDRESS, street: null, number: null } });
    expect(registryOnly(deriveUpdates(record(), withheld, AS_OF))).toEqual([]);
  });

  test('case, accents and punctuation are no move', () => {
    const spelled = record({ address: { ...ADDRESS, street: 'KERKSTRAAT.', place: 'GENT' } });
    expect(registryOnly(deriveUpdates(record(), spelled, AS_OF))).toEqual([]);
  });
});

describe('MOVED with the address in every language the registry gives it', () => {
  const brussels = {
    street: 'Rue du Chêne',
    number: '16',
    box: null,
    postalCode: '1000',
    place: 'Bruxelles',
  };
  const brussel = { street: 'Eikstraat', number: '16', box: null, postalCode: '1000', place: 'Brussel' };
  const forms = JSON.stringify([brussel, brussels]);

  test('a new display language of the same seat is no move', () => {
    const before = record({ address: brussels });
    const after = record({ address: brussel });
    expect(registryOnly(deriveUpdates(before, after, AS_OF))).toHaveLength(1);
    expect(
      registryOnly(deriveUpdates(before, after, AS_OF, { addressForms: { before: forms, after: forms } })),
    ).toEqual([]);
  });

  test('a seat whose every form changed moved', () => {
    const elsewhere = { ...brussel, street: 'Wetstraat', number: '1', postalCode: '1040' };
    const after = record({ address: elsewhere });
    const moved = JSON.stringify([
      elsewhere,
      { ...brussels, street: 'Rue de la Loi', number: '1', postalCode: '1040' },
    ]);
    expect(
      registryOnly(
        deriveUpdates(record({ address: brussels }), after, AS_OF, {
          addressForms: { before: forms, after: moved },
        }),
      ),
    ).toEqual([{ type: 'MOVED', place: 'Brussel', time: AS_OF }]);
  });
});

describe('STOPPED', () => {
  test('fires when stoppedOn appears or moves, dated the new stoppedOn; the same stoppedOn again is nothing', () => {
    const stopped = record({ stoppedOn: '2026-10-01' });
    const appeared = deriveUpdates(record(), stopped, AS_OF);
    expect(registryOnly(appeared)).toEqual([{ type: 'STOPPED', time: '2026-10-01' }]);
    expect(appeared[0]!.id).toBe(updateId(COMPANY, 'STOPPED#2026-10-01'));
    expect(registryOnly(deriveUpdates(stopped, record({ stoppedOn: '2026-09-15' }), AS_OF))).toEqual([
      { type: 'STOPPED', time: '2026-09-15' },
    ]);
    expect(deriveUpdates(stopped, stopped, AS_OF)).toEqual([]);
    expect(deriveUpdates(stopped, record(), AS_OF)).toEqual([]);
  });
});

describe('first imports', () => {
  test("a company's first import derives none of the three, but STOPPED for a company imported already stopped", () => {
    expect(registryOnly(deriveUpdates(null, record(), AS_OF))).toEqual([]);
    expect(registryOnly(deriveUpdates(null, record({ stoppedOn: '2025-03-01' }), AS_OF))).toEqual([
      { type: 'STOPPED', time: '2025-03-01' },
    ]);
  });

  test('the first write by a source that had not written the company derives none of the three', () => {
    const after = record({
      name: 'Acme Renovatie',
      address: { ...ADDRESS, street: 'Veldstraat' },
      stoppedOn: '2026-10-01',
    });
    expect(registryOnly(deriveUpdates(record(), after, AS_OF, { firstBySource: true }))).toEqual([]);
    expect(
      registryOnly(deriveUpdates(record(), after, AS_OF))
        .map((u) => u.type)
        .sort(),
    ).toEqual(['MOVED', 'NAME_CHANGED', 'STOPPED']);
  });

  test('deriving the same change again gives the same ids', () => {
    const after = record({
      name: 'Acme Renovatie',
      address: { ...ADDRESS, street: 'Veldstraat' },
      stoppedOn: '2026-10-01',
    });
    expect(deriveUpdates(record(), after, AS_OF).map((u) => u.id)).toEqual(
      deriveUpdates(record(), after, AS_OF).map((u) => u.id),
    );
  });
});

describe('titles', () => {
  test.each([
    [
      'en',
      'Name changed from A NV to B BV',
      'Registered office moved to Gent',
      'The company stopped its activities',
    ],
    [
      'nl',
      'Naam gewijzigd van A NV naar B BV',
      'Maatschappelijke zetel verhuisd naar Gent',
      'De onderneming heeft haar activiteiten stopgezet',
    ],
    [
      'fr',
      'Dénomination modifiée de A NV en B BV',
      'Siège social transféré à Gent',
      "L'entreprise a cessé ses activités",
    ],
  ] as const)('%s', (language, renamed, moved, stopped) => {
    expect(titleOf({ type: 'NAME_CHANGED', old: 'A NV', new: 'B BV' }, language)).toBe(renamed);
    expect(titleOf({ type: 'MOVED', place: 'Gent' }, language)).toBe(moved);
    expect(titleOf({ type: 'STOPPED' }, language)).toBe(stopped);
  });
});
