/**
 * How sure a match is (contract §6.5): a logistic model over what the entry says about a candidate,
 * its weights fitted on the labelled noisy set that `npm run bench:matching -- --fit` builds from the
 * demo data (typos, legal forms dropped or added, trade names, website and VAT variants, wrong places,
 * one name in two places), so that of the candidates given probability p, about p are right.
 * candidates.ts then shares it between rival candidates and keeps it in line with PUT's decision, and
 * `calibrated` below maps what that gives a candidate PUT did not add onto the share of such
 * candidates that were right on the same set.
 */

/** Each property: agrees (true), disagrees (false) or was not given (null); `name` is a similarity. */
export interface Features {
  number: boolean | null;
  vat: boolean | null;
  website: boolean | null;
  name: number | null;
  exactName: boolean;
  place: boolean | null;
}

/**
 * Fitted by `npm run bench:matching -- --fit` on 3,000 demo companies (test/bench/match-confidence.ts),
 * on the candidates of entries PUT does not decide (the model ranks only those). A disagreeing property
 * is held at ≤ 0 (never evidence for a company); `exactName` comes out slightly negative because an
 * exact name adds little to a name similarity of 1 and often names several companies.
 */
export const WEIGHTS = {
  bias: -2.28,
  numberAgrees: 0.78,
  numberDiffers: -3.48,
  vatAgrees: 0.96,
  vatDiffers: -3.41,
  websiteAgrees: 1.06,
  websiteDiffers: -1.07,
  name: 6.32,
  nameGiven: -3.53,
  exactName: -1.18,
  placeAgrees: 1.46,
  placeDiffers: 0,
};

export type FeatureVector = Record<keyof typeof WEIGHTS, number>;

export function vectorOf(f: Features): FeatureVector {
  const flag = (value: boolean | null, wanted: boolean) => (value === wanted ? 1 : 0);
  return {
    bias: 1,
    numberAgrees: flag(f.number, true),
    numberDiffers: flag(f.number, false),
    vatAgrees: flag(f.vat, true),
    vatDiffers: flag(f.vat, false),
    websiteAgrees: flag(f.website, true),
    websiteDiffers: flag(f.website, false),
    name: f.name ?? 0,
    nameGiven: f.name === null ? 0 : 1,
    exactName: f.exactName ? 1 : 0,
    placeAgrees: flag(f.place, true),
    placeDiffers: flag(f.place, false),
  };
}

/** The probability that the candidate is the company meant, under `weights`. */
export function confidenceOf(f: Features, weights: FeatureVector = WEIGHTS): number {
  const x = vectorOf(f);
  let z = 0;
  for (const key of Object.keys(weights) as (keyof FeatureVector)[]) z += weights[key] * x[key];
  return 1 / (1 + Math.exp(-z));
}

/**
 * Blocks (the least confidence after sharing in the block → share of its candidates right), fitted by
 * `npm run bench:matching -- --fit` (isotonic regression over the candidates PUT does not add), the
 * first from 0. Sharing holds back a right candidate whose rivals look almost as good, and the model's
 * few features cannot tell a noisy spelling from a rival of the same name: without this map, a middling
 * confidence understates how often such candidates are right (docs/benchmarks.md).
 */
export const CALIBRATION: ReadonlyArray<readonly [number, number]> = [
  [0, 0],
  [0.008162, 0.0008],
  [0.169383, 0.0309],
  [0.199999, 0.0874],
  [0.2, 0.0892],
  [0.222188, 0.1471],
  [0.227525, 0.2511],
  [0.227936, 0.2659],
  [0.284262, 0.307],
  [0.289285, 0.3348],
  [0.291235, 0.3598],
  [0.309511, 0.3896],
  [0.315752, 0.4391],
  [0.319323, 0.5107],
  [0.339477, 0.716],
  [0.340927, 0.7766],
  [0.369669, 0.815],
  [0.500388, 0.8925],
  [0.670512, 0.8934],
];

/** Below 0.9, always: only PUT's decision is worth 0.9 or more (contract §6.5). */
const BELOW_DECISION = 0.8999;

/**
 * A shared confidence (below 0.9) read through `blocks`: the share right of the block it falls in, rising
 * within the block by a tenth of the step to the next one (so candidates keep their order; the last
 * block steps up to 0.8999 at 0.9).
 */
export function calibrated(
  share: number,
  blocks: ReadonlyArray<readonly [number, number]> = CALIBRATION,
): number {
  const starts = [...blocks, [0.9, BELOW_DECISION] as const];
  for (let i = 1; i < starts.length; i++) {
    const [x0, y0] = starts[i - 1]!;
    const [x1, y1] = starts[i]!;
    if (share < x1) return y0 + (0.1 * (Math.max(share, x0) - x0) * (y1 - y0)) / (x1 - x0);
  }
  return BELOW_DECISION;
}
