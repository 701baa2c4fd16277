/** Locale-independent string order: the same on every machine and runtime (canonical forms, contract orders). */
export const byCodePoint = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
