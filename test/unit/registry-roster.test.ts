/**
 * (ext) Which writes keep KBO's roster (lib/import/registry-roster.ts), and the set changes they hand
 * back: pure, no storage.
 */
import { rosterChanges, rosterMayChange } from '../../lib/import/registry-roster';

const company = { country: 'BE' as const, companyNumber: '0403170701' };
// Block 040317 (the number but its last four digits), in shard 40317 mod 16 = 13.
const rosterItem = { pk: 'REGISTRY_ROSTER#kbo#BE#13', sk: '040317' };

describe('rosterMayChange', () => {
  it.each([
    ['a KBO write of a new company', 'kbo', null, {}, true],
    ['a KBO write of a stored one (set again, merged per block)', 'kbo', {}, {}, true],
    ['a filing that leaves stoppedOn as it was', 'cbso', { stoppedOn: null }, { stoppedOn: null }, false],
    [
      'a JSON Lines record that stops the company',
      'jsonl',
      { stoppedOn: null },
      { stoppedOn: '2026-01-02' },
      true,
    ],
    ['a JSON Lines record that restarts it', 'jsonl', { stoppedOn: '2026-01-02' }, { stoppedOn: null }, true],
    ['a SIRENE write, stoppedOn as it was', 'sirene', null, {}, false],
  ] as const)('%s: %s', (_, source, before, after, expected) => {
    expect(rosterMayChange(source, before, after)).toBe(expected);
  });
});

describe('rosterChanges', () => {
  it('adds a live company KBO wrote to its block, takes a stopped one out, and ignores other sources', () => {
    expect(
      rosterChanges([
        { company, sources: ['kbo', 'jsonl'], live: true },
        { company: { ...company, companyNumber: '0403170800' }, sources: ['kbo'], live: false },
        { company: { country: 'FR', companyNumber: '552100554' }, sources: ['sirene'], live: true },
        { company, sources: ['jsonl'], live: true },
      ]),
    ).toEqual([
      {
        key: rosterItem,
        attribute: 'companies',
        add: ['0403170701'],
        attributes: { entity: 'RegistryRoster' },
      },
      { key: rosterItem, attribute: 'companies', remove: ['0403170800'] },
    ]);
  });

  it('takes an erased company out of the roster whatever its sources were', () => {
    expect(rosterChanges([{ company, sources: [], live: false, erased: true }])).toEqual([
      { key: rosterItem, attribute: 'companies', remove: ['0403170701'] },
    ]);
  });
});
