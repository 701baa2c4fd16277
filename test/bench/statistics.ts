/** The bench's statistics: nearest-rank percentiles, medians with their interquartile range, verdicts. */

export function percentile(values: number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  // Nearest rank: always a value that was measured.
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}
export const median = (values: number[]) => percentile(values, 50);
/** The middle value, or the mean of the two middle ones (not always a value that was measured). */
export function middleMedian(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}
export const round = (n: number, digits = 2) => Math.round(n * 10 ** digits) / 10 ** digits;
export const kb = (bytes: number) => bytes / 1024;
export const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;

/** Median and interquartile range. */
export interface Spread {
  median: number;
  q1: number;
  q3: number;
}
export const spread = (values: number[], digits = 3): Spread => ({
  median: round(median(values), digits),
  q1: round(percentile(values, 25), digits),
  q3: round(percentile(values, 75), digits),
});
export const verdict = (ok: boolean) => (ok ? 'PASS' : 'OVER');

/** The keys of `T` whose values are numbers. */
type NumericKey<T> = { [K in keyof T]: T[K] extends number ? K : never }[keyof T];

/**
 * The first round's figures with each of `keys` the median of all the rounds' (each its own median, as
 * the floor's rates are), and the rounds' wall seconds kept to print their spread.
 */
export function withMedians<T extends { seconds: number }>(
  rounds: T[],
  keys: ReadonlyArray<NumericKey<T>>,
): T & { roundSeconds: number[] } {
  const medians = Object.fromEntries(
    keys.map((key) => [key, middleMedian(rounds.map((round) => round[key] as number))]),
  );
  return { ...rounds[0]!, ...medians, roundSeconds: rounds.map((round) => round.seconds) };
}

/** The lowest and highest of some rounds' seconds, as `1.52–1.80 s`. */
export const secondsRange = (seconds: number[]) =>
  `${Math.min(...seconds).toFixed(2)}–${Math.max(...seconds).toFixed(2)} s`;
