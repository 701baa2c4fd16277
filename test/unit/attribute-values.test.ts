import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import fc from 'fast-check';
import { itemFromAttributes } from '../../lib/storage/attribute-values';

/** Any attribute value DynamoDB can answer, nested a few levels, numbers beyond the safe integers included. */
const { attribute } = fc.letrec<{ attribute: AttributeValue }>((tie) => ({
  attribute: fc.oneof(
    { depthSize: 'small' },
    fc.string().map((S) => ({ S })),
    fc
      .oneof(fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.bigInt())
      .map((n) => ({ N: String(n) })),
    fc.constant({ NULL: true }),
    fc.boolean().map((BOOL) => ({ BOOL })),
    fc.uint8Array({ maxLength: 4 }).map((B) => ({ B })),
    fc.uniqueArray(fc.string(), { minLength: 1, maxLength: 3 }).map((SS) => ({ SS })),
    fc.uniqueArray(fc.integer().map(String), { minLength: 1, maxLength: 3 }).map((NS) => ({ NS })),
    fc.array(tie('attribute'), { maxLength: 3 }).map((L) => ({ L })),
    fc.dictionary(fc.string(), tie('attribute'), { maxKeys: 3 }).map((M) => ({ M })),
  ),
}));
const item = fc.dictionary(fc.oneof(fc.string(), fc.constantFrom('__proto__', 'constructor')), attribute, {
  maxKeys: 6,
});

/**
 * A value spelt out for comparison: sets, BigInts and bytes tagged, an object as its own entries in
 * order and its prototype (a `__proto__` attribute assigned as util-dynamodb assigns it). Jest's own
 * equality cannot walk a Set made in the module's realm.
 */
function spelt(value: unknown): unknown {
  if (typeof value === 'bigint') return { bigint: String(value) };
  if (value === null || typeof value !== 'object') return value;
  // Checked by their slots or their exact prototype: a map whose `__proto__` attribute made a Set or
  // bytes its prototype is still a map.
  if (ArrayBuffer.isView(value)) return { bytes: [...(value as Uint8Array)] };
  if (Array.isArray(value)) return value.map(spelt);
  if (Object.getPrototypeOf(value) === Set.prototype) return { set: [...(value as Set<unknown>)].map(spelt) };
  const prototype: unknown = Object.getPrototypeOf(value);
  return {
    entries: Object.entries(value).map(([name, inner]) => [name, spelt(inner)]),
    prototype: prototype === Object.prototype ? 'Object' : spelt(prototype),
  };
}

/** What a conversion gives, or the message it throws (util-dynamodb refuses some large numbers). */
function outcome(convert: () => unknown): unknown {
  try {
    return { value: spelt(convert()) };
  } catch (error) {
    return { error: (error as Error).message };
  }
}

/** An item whose first attribute is an own `__proto__` (as DynamoDB may answer), then `rest`. */
function ownProto(
  value: AttributeValue,
  rest: Record<string, AttributeValue>,
): Record<string, AttributeValue> {
  const item: Record<string, AttributeValue> = {};
  Object.defineProperty(item, '__proto__', { value, enumerable: true, writable: true, configurable: true });
  return Object.assign(item, rest);
}

describe('itemFromAttributes', () => {
  it('gives what util-dynamodb unmarshall gives (or throws what it throws), for any item', () => {
    fc.assert(
      fc.property(item, (attributes) => {
        expect(outcome(() => itemFromAttributes(attributes))).toEqual(outcome(() => unmarshall(attributes)));
      }),
      // Found by a CI run: bytes as the prototype (an own `__proto__` attribute), then a name it has a getter for.
      { examples: [[ownProto({ B: new Uint8Array() }, { length: { B: new Uint8Array() } })]] },
    );
  });

  it('keeps a number beyond the safe integers as util-dynamodb does (a BigInt)', () => {
    expect(itemFromAttributes({ n: { N: '12345678901234567890' }, m: { N: '-0.5' } })).toEqual({
      n: 12345678901234567890n,
      m: -0.5,
    });
  });
});
