/** Legal entities (contract §6.4) as pure rules: ids from a keyed hash, control, order and isPrimary. */
import type { StoredRelationships } from '../../lib/companies/holdings-store';
import {
  FULL_ID_SPACE,
  isLegalEntityId,
  legalEntityIdCandidate,
  LOCAL_LEGAL_ENTITY_SECRET,
} from '../../lib/legal-entities/ids';
import { legalEntitiesOf } from '../../lib/legal-entities/legal-entities';

const LOCAL = { secret: LOCAL_LEGAL_ENTITY_SECRET, space: FULL_ID_SPACE };
const ACME = { country: 'BE', companyNumber: '0403170701' } as const;
const NEXT = { country: 'BE', companyNumber: '0403170800' } as const;

describe('legal entity ids', () => {
  it('are 12 digits, the same for the same entity and secret', () => {
    const id = legalEntityIdCandidate(ACME, 0, LOCAL);
    expect(id).toMatch(/^[1-9]\d{11}$/);
    expect(isLegalEntityId(id)).toBe(true);
    expect(legalEntityIdCandidate({ ...ACME }, 0, { ...LOCAL })).toBe(id);
  });

  it('cannot be derived without the secret, and neighbouring numbers get unrelated ids', () => {
    const id = legalEntityIdCandidate(ACME, 0, LOCAL);
    expect(legalEntityIdCandidate(ACME, 0, { ...LOCAL, secret: 'another stage' })).not.toBe(id);
    const next = legalEntityIdCandidate(NEXT, 0, LOCAL);
    expect(Math.abs(Number(next) - Number(id))).toBeGreaterThan(1000);
  });

  it('offers another candidate after each collision, deterministically', () => {
    const candidates = [0, 1, 2, 3].map((attempt) => legalEntityIdCandidate(ACME, attempt, LOCAL));
    expect(new Set(candidates).size).toBe(4);
    expect([0, 1, 2, 3].map((attempt) => legalEntityIdCandidate(ACME, attempt, LOCAL))).toEqual(candidates);
  });

  it('collide in a deliberately small id space, and stay 12 digits there', () => {
    const tiny = { ...LOCAL, space: 4 };
    const ids = Array.from({ length: 10 }, (_, n) =>
      legalEntityIdCandidate({ country: 'NL', companyNumber: String(10_000_000 + n) }, 0, tiny),
    );
    expect(new Set(ids).size).toBeLessThan(ids.length);
    for (const id of ids) expect(id).toMatch(/^10000000000[0-3]$/);
  });

  it('accepts 10 to 12 digits as an id, nothing else', () => {
    expect(['4820917733', '48209177331', '482091773312'].every(isLegalEntityId)).toBe(true);
    expect(['482091773', '4820917733123', '48209l7733', ' 4820917733', ''].some(isLegalEntityId)).toBe(false);
  });
});

const stored = (overrides: Partial<StoredRelationships>): StoredRelationships => ({
  company: { ...ACME, name: 'Acme Holding NV', place: 'Gent' },
  legalEntityId: '100000000001',
  parents: [],
  registeredHolders: new Map(),
  children: [],
  ...overrides,
});

const held = (companyNumber: string, name: string, percentage: number, legalEntityId: string) => ({
  country: 'FR' as const,
  companyNumber,
  name,
  place: null,
  percentage,
  function: 'SHAREHOLDER' as const,
  legalEntityId,
});

describe('the legal entities of a company', () => {
  it('lists its own first, then those it holds more than 50 % of by name; exactly 50 % is not control', () => {
    const entities = legalEntitiesOf(
      stored({
        children: [
          held('552100554', 'Zeta SAS', 0.51, '100000000005'),
          held('356000000', 'Alpha SAS', 1, '100000000004'),
          held('732829320', 'Half SAS', 0.5, '100000000003'),
          held('443061841', 'Alpha SAS', 0.9, '100000000002'),
        ],
      }),
    );
    expect(entities).toEqual([
      { legalEntityId: '100000000001', countryCode: 'BE', name: 'Acme Holding NV', isPrimary: true },
      { legalEntityId: '100000000002', countryCode: 'FR', name: 'Alpha SAS', isPrimary: false },
      { legalEntityId: '100000000004', countryCode: 'FR', name: 'Alpha SAS', isPrimary: false },
      { legalEntityId: '100000000005', countryCode: 'FR', name: 'Zeta SAS', isPrimary: false },
    ]);
  });

  it('is not primary when a company in our data controls it; a holder outside our data does not count', () => {
    const parent = { country: 'NL' as const, companyNumber: '33011433' };
    const parents = [
      { company: parent, name: 'Moeder BV', percentage: 0.75, function: 'SHAREHOLDER' as const },
    ];
    expect(legalEntitiesOf(stored({ parents }))[0]!.isPrimary).toBe(true);
    const registeredHolders = new Map([['NL#33011433', { ...parent, name: 'Moeder BV', place: null }]]);
    expect(legalEntitiesOf(stored({ parents, registeredHolders }))[0]!.isPrimary).toBe(false);
    const half = [{ ...parents[0]!, percentage: 0.5 }];
    expect(legalEntitiesOf(stored({ parents: half, registeredHolders }))[0]!.isPrimary).toBe(true);
  });
});
