/**
 * Items read by the low-level calls of lib/storage/batch.ts (`getItem`, `batchGet`) as plain values: the
 * same values as util-dynamodb's `unmarshall`, taking a short way for what our items hold.
 *
 * util-dynamodb is written for any input: per attribute it lists the value's entries and checks the
 * type name against a dozen kinds, and rebuilds a map through `reduce`; a bulk answer converts 100
 * items that way (the CPU of both ways: docs/benchmarks.md). Here strings, numbers, null, booleans,
 * maps and lists are converted directly, and anything else (sets, binary, a number beyond the safe
 * integers) is handed to util-dynamodb itself, so the result is the same in every case.
 */
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { convertToNative } from '@aws-sdk/util-dynamodb';

type Item = Record<string, unknown>;

/** An item as plain values: what `unmarshall(item)` gives. */
export function itemFromAttributes(item: Record<string, AttributeValue>): Item {
  // An attribute named `__proto__` (none of ours is) sets the object's prototype when assigned, and what
  // follows then depends on that prototype: left to util-dynamodb, so the result is its result.
  if (Object.hasOwn(item, '__proto__')) return convertToNative({ M: item }) as Item;
  const values: Item = {};
  for (const name of Object.keys(item)) values[name] = nativeValue(item[name]!);
  return values;
}

/**
 * One attribute value. An attribute value read from DynamoDB has exactly one member (`{ S: 'text' }`),
 * so testing the members one by one finds the same one util-dynamodb finds.
 */
function nativeValue(value: AttributeValue): unknown {
  if (value.S !== undefined) return value.S;
  if (value.N !== undefined) {
    const number = Number(value.N);
    // util-dynamodb's rule: outside the safe integers it makes a BigInt (or throws); left to it.
    if (Math.abs(number) <= Number.MAX_SAFE_INTEGER) return number;
  } else if (value.NULL !== undefined) return null;
  else if (value.BOOL !== undefined) return Boolean(value.BOOL);
  else if (value.M !== undefined) return itemFromAttributes(value.M);
  else if (value.L !== undefined) return value.L.map(nativeValue);
  return convertToNative(value);
}
