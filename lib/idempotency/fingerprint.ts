/**
 * What makes two requests "the same request" for an Idempotency-Key (contract §7.5): the sha256 of a
 * canonical JSON of their input. Object keys are sorted at every depth, so `{a: 1, b: 2}` and
 * `{b: 2, a: 1}` match; array order counts (it is part of the request: results come in request order).
 * Otherwise JSON.stringify's own rules hold: `toJSON` first (a Date is its ISO string), undefined
 * properties dropped.
 */
import { createHash } from 'node:crypto';

export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, sortedKeys) ?? 'null';
}

/** Hex sha256 of the canonical JSON: 64 characters, whatever the size of the input. */
export function fingerprintOf(value: unknown): string {
  return createHash('sha256').update(canonicalJson(value)).digest('hex');
}

function sortedKeys(_key: string, value: unknown): unknown {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
  const object = value as Record<string, unknown>;
  return Object.fromEntries(
    Object.keys(object)
      .sort()
      .map((key) => [key, object[key]]),
  );
}
