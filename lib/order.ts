/** Locale-independent string order: the same on every machine and runtime (canonical forms, contract orders). */
export const byCodePoint = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

let combiningMarks: RegExp | undefined;

/**
 * `Élodie` → `elodie`: a text as it compares without accents (combining marks after canonical
 * decomposition) or case. The pattern is made on first use: V8 checks every pattern literal of a
 * script when it loads it, and a Unicode property (`\p{M}`) makes it build the property's character
 * set, which a function that never compares such texts should not pay for (docs/benchmarks.md).
 */
export const folded = (text: string): string =>
  text
    .normalize('NFD')
    .replace((combiningMarks ??= new RegExp(String.raw`\p{M}+`, 'gu')), '')
    .toLowerCase();
