/**
 * How sure a match is (contract §6.5): a logistic model over what the entry says about a candidate,
 * its weights fitted on the labelled noisy set that `npm run bench:matching -- --fit` builds from the
 * demo data (typos, legal forms dropped or added, trade names, website and VAT variants, wrong places,
 * one name in two places), so that of the candidates given probability p, about p are right.
 * candidates.ts then shares it between rival candidates and keeps it in line with PUT's decision.
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
