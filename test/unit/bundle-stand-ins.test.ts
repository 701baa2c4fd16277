/**
 * The modules infra/bundling.ts puts in the function bundles in place of a package must behave as the
 * package does where the bundles use them: tried against the package itself (which the tests load).
 */
import fc from 'fast-check';
import MnemonistLru from 'mnemonist/lru-cache';
import { createError as middyCreateError } from '@middy/util';
import { createError } from '../../lib/http/middy-util';
import LruCache from '../../lib/storage/lru-cache';

describe('lib/storage/lru-cache.ts (for mnemonist/lru-cache)', () => {
  it('answers every sequence of calls as mnemonist does, evictions included', () => {
    const call = fc.oneof(
      fc.tuple(fc.constant('set' as const), fc.integer({ min: 0, max: 6 }), fc.integer()),
      fc.tuple(
        fc.constantFrom('get' as const, 'peek' as const, 'has' as const),
        fc.integer({ min: 0, max: 6 }),
      ),
      fc.constant(['clear' as const] as const),
    );
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 4 }), fc.array(call, { maxLength: 60 }), (capacity, calls) => {
        const ours = new LruCache<number, number>(capacity);
        const theirs = new MnemonistLru<number, number>(capacity);
        for (const [name, key, value] of calls) {
          if (name === 'set') {
            ours.set(key, value);
            theirs.set(key, value);
          } else if (name === 'clear') {
            ours.clear();
            theirs.clear();
          } else {
            expect(ours[name](key)).toEqual(theirs[name](key));
          }
          expect(ours.size).toBe(theirs.size);
        }
      }),
    );
  });
});

describe('lib/http/middy-util.ts (for @middy/util)', () => {
  it("makes the parser's errors with what middy's have: message, cause, status, expose", () => {
    const cause = { package: '@middy/http-json-body-parser', data: '{' };
    const ours = createError(415, 'Invalid or malformed JSON was provided', { cause });
    const theirs = middyCreateError(415, 'Invalid or malformed JSON was provided', { cause });
    for (const error of [ours, theirs]) {
      expect(error).toBeInstanceOf(Error);
      expect(error).toMatchObject({
        message: 'Invalid or malformed JSON was provided',
        cause,
        status: 415,
        statusCode: 415,
        expose: true,
      });
    }
  });
});
