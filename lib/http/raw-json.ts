/**
 * JSON text that goes into an answer as it is: stored JSON that would otherwise be parsed only to be
 * serialised again (what `JSON.rawJSON` does on newer Node versions, for every version we run on).
 * `T` is what the text stands for, so an answer made of raw parts is still typed as the route's body.
 */
export class RawJson<T> {
  declare private readonly standsFor?: T;
  constructor(readonly text: string) {}

  /**
   * What JSON.stringify writes for it: inside `toRawJson`, a marker it then replaces with the text;
   * anywhere else, the parsed text (the same JSON, the slow way).
   */
  toJSON(): unknown {
    if (!collected) return JSON.parse(this.text);
    return `${markers().mark}${collected.push(this.text) - 1}`;
  }
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
 *
 * One native JSON.stringify does the work: each RawJson stands in as a marker string (its `toJSON`),
 * which is then replaced by its text in one pass. A marker is a control character and a 128-bit nonce
 * drawn once per process, with the part's number: stored or customer data would have to hold that
 * nonce, which never leaves the process, to be mistaken for one. (`JSON.rawJSON` does the same
 * natively from Node 22; the tests and the local stage run on Node 20.)
 */
export function toRawJson<T>(value: WithRawJson<T>): RawJson<T> {
  const outer = collected;
  const texts: string[] = [];
  collected = texts;
  let json: string;
  try {
    json = JSON.stringify(value) ?? 'null';
  } finally {
    collected = outer;
  }
  if (texts.length === 0) return new RawJson<T>(json);
  replacing = texts;
  try {
    return new RawJson<T>(json.replace(markers().written, textOfMarker));
  } finally {
    replacing = [];
  }
}

/** The texts of the RawJson parts met by the `toRawJson` running now, by number. */
let collected: string[] | null = null;

/**
 * The texts whose markers `toRawJson` is replacing now, read by `textOfMarker`: a function of the
 * module, not an arrow made per call, since it runs once per part (a bulk answer has 100 or more) and
 * V8 compiles each new per-call arrow again once it gets hot.
 */
let replacing: string[] = [];
const textOfMarker = (_marker: string, i: string) => replacing[Number(i)]!;

let drawn: { mark: string; written: RegExp } | undefined;

/** The marker's start, and a marker as JSON.stringify writes it (quoted, the control character escaped). */
function markers(): { mark: string; written: RegExp } {
  if (!drawn) {
    // Drawn at first use, not at load: a function that never sends stored JSON never pays for it.
    const nonce = globalThis.crypto.randomUUID();
    drawn = { mark: `\u0001${nonce}#`, written: new RegExp(`"\\\\u0001${nonce}#(\\d+)"`, 'g') };
  }
  return drawn;
}
