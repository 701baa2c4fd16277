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

/** Fitted by `npm run bench:matching -- --fit` (see test/bench/matching.ts). */
export const WEIGHTS = {
  bias: -2.41,
  numberAgrees: 1.99,
  numberDiffers: -4.3,
  vatAgrees: 2.17,
  vatDiffers: -4.19,
  websiteAgrees: 2.55,
  websiteDiffers: -1.54,
  name: 5.81,
  nameGiven: -3.81,
  exactName: 0.48,
  placeAgrees: 2.61,
  placeDiffers: 0.11,
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
