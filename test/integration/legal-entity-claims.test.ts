/**
 * Legal entity ids claimed for a batch of entities without a read first (contract §6.4,
 * lib/legal-entities/assign.ts): the claim's condition is the only check, so a taken id, an id of the
 * batch wanted twice and an id already the entity's (a resumed run) must all come out right.
 */
import { belgianCheckDigits, companyKey } from '../../lib/companies/identifiers';
import { assignLegalEntityIds } from '../../lib/legal-entities/assign';
import { legalEntityIdCandidate, LOCAL_LEGAL_ENTITY_SECRET } from '../../lib/legal-entities/ids';
import { getLegalEntityCompany } from '../../lib/legal-entities/store';
import { useFreshTable } from '../support/table';

useFreshTable();

/** 24 ids for 20 entities: most first candidates collide with another's. */
const SMALL_ID_SPACE = { secret: LOCAL_LEGAL_ENTITY_SECRET, space: 24 };

const company = (n: number) => {
  const firstEight = `07${String(n).padStart(6, '0')}`;
  return { country: 'BE' as const, companyNumber: firstEight + belgianCheckDigits(firstEight) };
};

describe('assignLegalEntityIds', () => {
  const first = Array.from({ length: 12 }, (_, i) => company(i + 1));
  const second = Array.from({ length: 8 }, (_, i) => company(i + 101));

  it('gives each entity of a batch its own id, moving past ids taken by the batch or by others', async () => {
    const earlier = await assignLegalEntityIds(first, SMALL_ID_SPACE);
    const later = await assignLegalEntityIds(second, SMALL_ID_SPACE);
    const ids = [...earlier.values(), ...later.values()];
    expect(ids).toHaveLength(first.length + second.length);
    expect(new Set(ids).size).toBe(ids.length);
    for (const [key, id] of [...earlier, ...later])
      expect(companyKey((await getLegalEntityCompany(id))!)).toBe(key);
    // Some entity found its first candidate taken and has a later one.
    const moved = [...first, ...second].filter(
      (c) =>
        (earlier.get(companyKey(c)) ?? later.get(companyKey(c))) !==
        legalEntityIdCandidate(c, 0, SMALL_ID_SPACE),
    );
    expect(moved.length).toBeGreaterThan(0);
  });

  it('answers the same ids when claimed again (a resumed run), whoever asks first', async () => {
    const before = new Map([
      ...(await assignLegalEntityIds(first, SMALL_ID_SPACE)),
      ...(await assignLegalEntityIds(second, SMALL_ID_SPACE)),
    ]);
    const again = await assignLegalEntityIds([...second, ...first].reverse(), SMALL_ID_SPACE);
    expect(again).toEqual(before);
  });
});
