/**
 * How alike two company names and two places are (contract §6.5 match), on the normalised words of
 * lib/companies/normalise.ts: the same words in any order are the same name; a word matches a word
 * that it starts (a customer's `Bouw` for `Bouwbedrijf`) or that differs by a typo.
 */
import { foldedWords } from '../companies/normalise';

/** 1 for the same words (any order), 0 for nothing in common: a Dice coefficient over fuzzy word matches. */
export function nameSimilarity(a: readonly string[], b: readonly string[]): number {
  if (a.length === 0 || b.length === 0) return 0;
  if (a.length === b.length && [...a].sort().join(' ') === [...b].sort().join(' ')) return 1;
  const unused = [...b];
  let matched = 0;
  for (const word of a) {
    let best = 0;
    let at = -1;
    unused.forEach((other, i) => {
      const score = wordSimilarity(word, other);
      if (score > best) [best, at] = [score, i];
    });
    if (at >= 0) {
      matched += best;
      unused.splice(at, 1);
    }
  }
  return Math.min(1, (2 * matched) / (a.length + b.length));
}

/** Equal 1; one starts the other (3 letters or more) 0.9; a typo or two in a long word 0.75..0.9; else 0. */
function wordSimilarity(a: string, b: string): number {
  if (a === b) return 1;
  const [short, long] = a.length <= b.length ? [a, b] : [b, a];
  if (short.length >= 3 && long.startsWith(short)) return 0.9;
  if (long.length < 4) return 0;
  const ratio = 1 - editDistance(a, b) / long.length;
  return ratio >= 0.75 ? ratio * 0.9 : 0;
}

/** Levenshtein distance (names are short: a row at a time is plenty). */
function editDistance(a: string, b: string): number {
  let row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const next = [i];
    for (let j = 1; j <= b.length; j++) {
      next[j] = Math.min(row[j]! + 1, next[j - 1]! + 1, row[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    row = next;
  }
  return row[b.length]!;
}

/** `Sint-Niklaas` and `sint niklaas`, `Liège` and `LIEGE` are one place. */
export const samePlace = (a: string, b: string): boolean =>
  foldedWords(a).join(' ') === foldedWords(b).join(' ');
