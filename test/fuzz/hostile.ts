/**
 * Hostile values and where to put them: a value of the wrong type wherever it lands (boundary numbers,
 * huge and unicode strings, deep nesting), prototype keys, and every place in a valid body to put one.
 */
import fc from 'fast-check';

const BOUNDARY_NUMBERS = [
  0,
  -0,
  -1,
  1,
  0.5,
  1.5,
  99.999,
  2 ** 31,
  -(2 ** 31),
  2 ** 53,
  2 ** 53 + 2,
  -(2 ** 53),
  1e21,
  1e308,
  -1e308,
  5e-324,
];

export const unicode = fc.string({ unit: 'binary', maxLength: 40 });
export const huge = fc
  .integer({ min: 1_000, max: 200_000 })
  .chain((n) => fc.constantFrom('a', '€', '😀', '\u0000', '\uFFFD', 'e\u0301').map((unit) => unit.repeat(n)));

/** A value of any JSON type, chosen to break an assumption: the wrong type wherever it lands. */
export const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.constantFrom(...BOUNDARY_NUMBERS),
  fc.constantFrom('', ' ', '0', '-1', 'null', 'true', '[]', '{}', 'NaN', 'Infinity', '1e3', '0x10', '00'),
  unicode,
  huge,
  fc.constant([]),
  fc.constant({}),
  fc.jsonValue({ maxDepth: 3 }),
  fc.integer({ min: 20, max: 60 }).map(nested),
);

/** Arrays and objects nested `depth` levels deep (the API refuses more than 32). */
function nested(depth: number): unknown {
  let value: unknown = 1;
  for (let i = 0; i < depth; i++) value = i % 2 === 0 ? [value] : { a: value };
  return value;
}

export const PROTO_KEYS = ['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty'];

/** Every place in a value: the root, each object key and each array index, at every depth. */
export function places(value: unknown, at: Array<string | number> = []): Array<Array<string | number>> {
  const found = [at];
  if (Array.isArray(value)) value.forEach((item, i) => found.push(...places(item, [...at, i])));
  else if (value !== null && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) found.push(...places(item, [...at, key]));
  }
  return found;
}

export function replaceAt(value: unknown, at: Array<string | number>, replacement: unknown): unknown {
  if (at.length === 0) return replacement;
  const [head, ...rest] = at;
  if (Array.isArray(value))
    return value.map((item, i) => (i === head ? replaceAt(item, rest, replacement) : item));
  const copy: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value as object)) {
    // An own `__proto__` key survives the copy (and JSON.stringify) only when defined as a property.
    Object.defineProperty(copy, key, {
      value: key === head ? replaceAt(item, rest, replacement) : item,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return copy;
}

export function addKeyAt(value: unknown, at: Array<string | number>, key: string, added: unknown): unknown {
  const target = at.reduce<unknown>((node, step) => (node as Record<string, unknown>)[step], value);
  if (target === null || typeof target !== 'object' || Array.isArray(target)) return value;
  const extended: Record<string, unknown> = {};
  Object.defineProperty(extended, key, {
    value: added,
    enumerable: true,
    writable: true,
    configurable: true,
  });
  for (const [k, item] of Object.entries(target)) {
    Object.defineProperty(extended, k, { value: item, enumerable: true, writable: true, configurable: true });
  }
  return replaceAt(value, at, extended);
}
