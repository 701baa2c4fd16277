/**
 * JSON text that goes into an answer as it is: stored JSON that would otherwise be parsed only to be
 * serialised again (what `JSON.rawJSON` does on newer Node versions, for every version we run on).
 * `T` is what the text stands for, so an answer made of raw parts is still typed as the route's body.
 */
export class RawJson<T> {
  declare private readonly standsFor?: T;
  constructor(readonly text: string) {}
}

/** A `T` to serialise in which any part may already be JSON text (a RawJson of that part). */
export type WithRawJson<T> =
  | T
  | RawJson<T>
  | (T extends readonly (infer E)[]
      ? WithRawJson<E>[]
      : T extends object
        ? { [K in keyof T]: WithRawJson<T[K]> }
        : T);

/**
 * `JSON.stringify(value)` with each RawJson written as its text, byte for byte what stringifying the
 * parsed text would give (for plain JSON data: objects, arrays, strings, numbers, booleans, null;
 * members that are undefined left out, as JSON.stringify does).
 */
export function toRawJson<T>(value: WithRawJson<T>): RawJson<T> {
  return new RawJson<T>(serialise(value));
}

function serialise(value: unknown): string {
  if (value instanceof RawJson) return value.text;
  // A part without RawJson in it goes to JSON.stringify whole: one native call, not one per member.
  if (!holdsRawJson(value)) return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value))
    return `[${value.map((item) => (item === undefined ? 'null' : serialise(item))).join(',')}]`;
  if (value === null || typeof value !== 'object' || 'toJSON' in value) return JSON.stringify(value);
  const members: string[] = [];
  for (const [key, member] of Object.entries(value)) {
    if (member !== undefined) members.push(`${JSON.stringify(key)}:${serialise(member)}`);
  }
  return `{${members.join(',')}}`;
}

/** Whether a RawJson sits anywhere in the value (it may only sit in plain objects and arrays). */
function holdsRawJson(value: unknown): boolean {
  if (value === null || typeof value !== 'object') return false;
  if (value instanceof RawJson) return true;
  if (Array.isArray(value)) return value.some(holdsRawJson);
  if ('toJSON' in value) return false;
  for (const key in value) if (holdsRawJson((value as Record<string, unknown>)[key])) return true;
  return false;
}
