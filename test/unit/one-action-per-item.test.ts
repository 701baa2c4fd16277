/** No request names one item twice (lib/storage/one-action-per-item.ts, lib/import/gathered-writes.ts). */
import fc from 'fast-check';
import { GatheredWrites } from '../../lib/import/gathered-writes';
import {
  actionKey,
  assertOneActionPerItem,
  gatheredBy,
  roundsByItem,
  TwoActionsOnOneItemError,
  uniqueKey,
} from '../../lib/storage/one-action-per-item';

const key = (pk: string, sk = 'S') => ({ pk, sk });

describe('assertOneActionPerItem', () => {
  it('lets distinct items through and names the first item named twice', () => {
    expect(() => assertOneActionPerItem('BatchWriteItem', [key('A'), key('B'), key('A', 'T')])).not.toThrow();
    const error = (() => {
      try {
        assertOneActionPerItem('TransactWriteItems', [key('A'), key('B'), { ...key('A'), other: 1 }]);
      } catch (e) {
        return e;
      }
    })() as TwoActionsOnOneItemError;
    expect(error).toBeInstanceOf(TwoActionsOnOneItemError);
    expect(error.message).toBe(
      'a write put two actions on one item in one TransactWriteItems request (pk A, sk S)',
    );
  });

  it('tells keys apart whatever their parts hold', () => {
    // 'A#' + 'B' and 'A' + '#B' would be one string if joined plainly.
    expect(() => assertOneActionPerItem('BatchWriteItem', [key('A#', 'B'), key('A', '#B')])).not.toThrow();
    expect(uniqueKey(key('A#', 'B'))).not.toBe(uniqueKey(key('A', '#B')));
  });

  it('reads the key of every kind of transaction action', () => {
    expect(actionKey({ Put: { Item: { pk: 'P', sk: 'S', x: 1 } } })).toEqual(key('P'));
    expect(actionKey({ Update: { Key: key('U') } })).toEqual(key('U'));
    expect(actionKey({ Delete: { Key: key('D') } })).toEqual(key('D'));
    expect(actionKey({ ConditionCheck: { Key: key('C') } })).toEqual(key('C'));
  });
});

describe('gatheredBy', () => {
  it('names what gathered the actions, the innermost name first', async () => {
    const fail = () => Promise.reject(new TwoActionsOnOneItemError('BatchWriteItem', key('X')));
    await expect(gatheredBy('outer', () => gatheredBy('holdings', fail))).rejects.toThrow(
      'holdings put two actions on one item in one BatchWriteItem request (pk X, sk S)',
    );
    await expect(gatheredBy('outer', () => Promise.reject(new Error('other')))).rejects.toThrow('other');
  });
});

describe('roundsByItem', () => {
  it('spreads actions so that no round names an item twice, each item in its order', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.constantFrom('A', 'B', 'C', 'D'), fc.nat(1000))), (actions) => {
        const rounds = roundsByItem(actions, ([pk]) => key(pk));
        for (const round of rounds)
          expect(() =>
            assertOneActionPerItem(
              'TransactWriteItems',
              round.map(([pk]) => key(pk)),
            ),
          ).not.toThrow();
        // Nothing lost, nothing added, and an item's actions keep their order across rounds.
        expect(rounds.flat().length).toBe(actions.length);
        for (const pk of ['A', 'B', 'C', 'D']) {
          const given = actions.filter(([p]) => p === pk);
          expect(rounds.flatMap((round) => round.filter(([p]) => p === pk))).toEqual(given);
        }
      }),
    );
  });
});

describe('GatheredWrites', () => {
  it('puts an item put twice alike once, deletes a key once, and keeps additions and set changes', () => {
    const writes = new GatheredWrites();
    writes.add('lists', {
      puts: [{ ...key('A'), v: 1 }],
      deletes: [key('D')],
      setChanges: [{ key: key('M'), attribute: 's', add: ['x'] }],
    });
    writes.add('smart lists', {
      puts: [
        { ...key('A'), v: 1 },
        { ...key('B'), v: 2 },
      ],
      deletes: [key('D')],
      additions: [{ key: key('F'), attributes: { a: 1 } }],
    });
    expect(writes.puts).toEqual([
      { ...key('A'), v: 1 },
      { ...key('B'), v: 2 },
    ]);
    expect(writes.deletes).toEqual([key('D')]);
    expect(writes.additions).toHaveLength(1);
    expect(writes.setChanges).toHaveLength(1);
  });

  it('refuses two different puts of one item, naming both derivations, before anything is sent', () => {
    const writes = new GatheredWrites();
    writes.add('updates', { puts: [{ ...key('A'), v: 1 }], deletes: [] });
    expect(() => writes.add('smart lists', { puts: [{ ...key('A'), v: 2 }], deletes: [] })).toThrow(
      'updates and smart lists put two actions on one item in one BatchWriteItem request (pk A, sk S)',
    );
  });

  it('keeps the names of writes gathered elsewhere', () => {
    const inner = new GatheredWrites();
    inner.add('holdings', { puts: [{ ...key('A'), v: 1 }], deletes: [] });
    const outer = new GatheredWrites();
    outer.add('the batch derivations', inner);
    expect(() => outer.add('the derivations', { puts: [{ ...key('A'), v: 2 }], deletes: [] })).toThrow(
      /^holdings and the derivations put two actions/,
    );
  });
});
