/**
 * The match endpoint's engine on a labelled set (contract §6.5; run by test/bench/matching.ts): PUT's
 * entries plus noisier ones, each candidate labelled right when it is the company the entry was written
 * from. Prints precision at confidence ≥ 0.9, the top-1 share of entries with ≥ 2 properties, a
 * reliability table, and with `fit` the logistic weights that make the confidence a probability.
 */
import { companyKey, type Country } from '../../lib/companies/identifiers';
import {
  featuresFor,
  matchEntry,
  planMatch,
  type CandidateEntry,
  type MatchSources,
  type Profile,
} from '../../lib/matching/candidates';
import { vectorOf, WEIGHTS, type FeatureVector } from '../../lib/matching/confidence';

import type { Found } from '../../lib/matching/decide';
import { nameWords } from '../../lib/companies/normalise';
import { matchKeysOf } from '../../lib/lists/match-index';
import { matchIndexText } from '../../lib/storage/keys';
import type { DemoRecord } from '../fixtures/demo-data/records';

export interface MatchLabelled {
  entry: CandidateEntry;
  meant: string | null;
  combination: string;
}

/** The match indexes in memory, as the import builds them (its own `matchKeysOf`): no DynamoDB needed. */
export function foundOf(records: DemoRecord[]): Found {
  const index = new Map<string, string[]>();
  for (const record of records) {
    for (const key of matchKeysOf(record)) {
      const text = matchIndexText(key.kind, key.value);
      index.set(text, [...(index.get(text) ?? []), companyKey(record)]);
    }
  }
  const known = new Set(records.map(companyKey));
  return { exists: (c) => known.has(c), indexed: (key) => index.get(key) ?? [] };
}

/** The in-memory sources: the match indexes (`found`), profiles and name-word prefixes as the import keeps them. */
export function sourcesOf(records: DemoRecord[], found: Found): MatchSources {
  const profiles = new Map<string, Profile>();
  const prefixes = new Map<string, string[]>();
  for (const r of records) {
    const company = companyKey(r);
    profiles.set(company, { name: r.name, place: r.place, addressPlace: r.address?.place ?? null });
    for (const word of new Set(nameWords(r.name))) {
      for (let n = 1; n <= Math.min(3, word.length); n++) {
        const key = `${r.country}#${word.slice(0, n)}`;
        prefixes.set(key, [...(prefixes.get(key) ?? []), company]);
      }
    }
  }
  return {
    ...found,
    byPrefix: (country: Country, prefix: string) => prefixes.get(`${country}#${prefix}`) ?? [],
    profile: (company) => profiles.get(company),
  };
}

/** Noise customers add: a typo, a trade name (a word dropped or added), the place, right or wrong. */
export function noisyEntries(records: DemoRecord[], random: () => number): MatchLabelled[] {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const places = [...new Set(records.map((r) => r.place))];
  const typo = (name: string) => {
    const words = name.split(' ');
    const i = words.findIndex((w) => w.length >= 5);
    if (i < 0) return name;
    const w = words[i]!;
    const at = 1 + Math.floor(random() * (w.length - 2));
    words[i] = pick([
      w.slice(0, at) + w.slice(at + 1),
      w.slice(0, at) + w[at + 1] + w[at] + w.slice(at + 2),
      w.slice(0, at) + 'e' + w.slice(at + 1),
    ]);
    return words.join(' ');
  };
  const tradeName = (r: DemoRecord) => {
    const base = r.name.split(' ').slice(0, -1);
    return base.length > 1 && random() < 0.5
      ? base.slice(0, -1).join(' ')
      : `${base.join(' ')} ${pick(['Group', 'Services', '& Co', 'International'])}`;
  };
  const set: MatchLabelled[] = [];
  for (const r of records) {
    const meant = companyKey(r);
    const rightPlace = random() < 0.75;
    const place = rightPlace ? r.place : pick(places.filter((p) => p !== r.place));
    const label = (what: string) => `${what}${rightPlace ? '' : ' (wrong place)'}`;
    set.push({ entry: { name: typo(r.name), place }, meant, combination: label('typo+place') });
    set.push({ entry: { name: tradeName(r), place }, meant, combination: label('trade name+place') });
    set.push({
      entry: { name: r.name, country: r.country, place },
      meant,
      combination: label('name+country+place'),
    });
    if (r.website) {
      set.push({
        entry: { name: typo(r.name), website: `http://${new URL(r.website).hostname}` },
        meant,
        combination: 'typo+website',
      });
    }
    set.push({
      entry: { name: tradeName(r), VAT: r.vatNumber.replace(/(\d{3})(?=\d)/g, '$1 ') },
      meant,
      combination: 'trade name+VAT',
    });
  }
  // Unknown companies: the name of no company, with a place.
  for (const r of records.slice(0, Math.floor(records.length / 5))) {
    set.push({
      entry: { name: `${r.name.split(' ')[0]} Zyxqua`, place: r.place },
      meant: null,
      combination: 'unknown name',
    });
  }
  return set;
}

interface Sample {
  x: FeatureVector;
  right: boolean;
}

/** Runs the engine over the set and prints the figures of §6.5's goals. */
export function reportMatch(set: MatchLabelled[], sources: MatchSources, fit: boolean): void {
  const samples: Sample[] = [];
  let aboveRight = 0;
  let above = 0;
  let topRight = 0;
  let topEntries = 0;
  const bands = Array.from({ length: 10 }, () => ({ candidates: 0, right: 0, sum: 0 }));
  for (const { entry, meant } of set) {
    const plan = planMatch(entry);
    const { decision, candidates } = matchEntry(plan, sources);
    for (const c of candidates) {
      const right = c.company === meant;
      // The model decides only where PUT does not: it is fitted there.
      if (!decision.ok) samples.push({ x: vectorOf(featuresFor(plan, c.company, sources)!), right });
      if (c.confidence >= 0.9) {
        above++;
        if (right) aboveRight++;
      }
      const band = bands[Math.min(9, Math.floor(c.confidence * 10))]!;
      band.candidates++;
      band.sum += c.confidence;
      if (right) band.right++;
    }
    const usable = (['companyNumber', 'VAT', 'website', 'name'] as const).filter(
      (p) => entry[p] !== undefined,
    );
    if (meant && usable.length >= 2) {
      topEntries++;
      if (candidates[0]?.company === meant) topRight++;
    }
  }
  const pct = (n: number, d: number) => (d === 0 ? '—' : `${((100 * n) / d).toFixed(2)} %`);
  console.log(
    `\nMatch (§6.5): ${set.length} labelled entries, ${bands.reduce((n, b) => n + b.candidates, 0)} candidates shown`,
  );
  console.log(
    `${'confidence'.padEnd(14)}${'candidates'.padStart(11)}${'mean'.padStart(9)}${'correct'.padStart(11)}`,
  );
  bands.forEach((b, i) => {
    const label = `${(i / 10).toFixed(1)}–${((i + 1) / 10).toFixed(1)}`;
    const mean = b.candidates ? (b.sum / b.candidates).toFixed(3) : '—';
    console.log(
      `${label.padEnd(14)}${String(b.candidates).padStart(11)}${mean.padStart(9)}${pct(b.right, b.candidates).padStart(11)}`,
    );
  });
  const precision = above === 0 ? 1 : aboveRight / above;
  const top = topEntries === 0 ? 1 : topRight / topEntries;
  console.log(
    `${precision >= 0.99 ? 'PASS' : 'OVER'}  precision at confidence ≥ 0.9: ${pct(aboveRight, above)} of ${above} (≥ 99 %)`,
  );
  console.log(
    `${top >= 0.97 ? 'PASS' : 'OVER'}  top-1 with ≥ 2 properties: ${pct(topRight, topEntries)} of ${topEntries} (≥ 97 %)`,
  );
  if (fit) {
    console.log(
      `\nFitted weights for lib/matching/confidence.ts:\n${JSON.stringify(fitWeights(samples), null, 2)}`,
    );
    console.log(
      `\nFitted CALIBRATION for lib/matching/confidence.ts (with the weights in force):\n${JSON.stringify(fitCalibration(set, sources))}`,
    );
  }
}

/**
 * The blocks of `calibrated` (lib/matching/confidence.ts): the candidates PUT does not add, by their
 * confidence without calibration, pooled into blocks whose share right increases (isotonic regression,
 * pool adjacent violators), each block its least confidence (the first 0) and its share right. Shares
 * are kept under 0.89 and lifted by a hair with the confidence, so they rise strictly and stay below 0.9.
 */
function fitCalibration(set: MatchLabelled[], sources: MatchSources): [number, number][] {
  // Confidence before calibration → [candidates, right].
  const byShare = new Map<number, [number, number]>();
  for (const { entry, meant } of set) {
    for (const c of matchEntry(planMatch(entry), sources).candidates) {
      if (c.confidence >= 0.9) continue;
      const share = Math.min(c.share, 0.8999);
      const tally = byShare.get(share) ?? [0, 0];
      tally[0]++;
      if (c.company === meant) tally[1]++;
      byShare.set(share, tally);
    }
  }
  const blocks: { n: number; from: number; right: number }[] = [];
  for (const [share, [n, right]] of [...byShare].sort(([a], [b]) => a - b)) {
    blocks.push({ n, from: share, right });
    // Pool while a block is right no more often than the one before it.
    while (blocks.length > 1) {
      const last = blocks[blocks.length - 1]!;
      const before = blocks[blocks.length - 2]!;
      if (before.right / before.n < last.right / last.n) break;
      blocks.splice(-2, 2, { n: before.n + last.n, from: before.from, right: before.right + last.right });
    }
  }
  const points: [number, number][] = [];
  for (const [i, { n, from, right }] of blocks.entries()) {
    // Floored, so the least confidence of the block stays in it.
    const x = i === 0 ? 0 : Math.floor(from * 1e6) / 1e6;
    const y = Math.round((Math.min(right / n, 0.89) + 0.005 * x) * 10_000) / 10_000;
    const last = points[points.length - 1];
    if (!last || (x > last[0] && y > last[1])) points.push([x, y]);
  }
  return points;
}

/** Logistic regression by projected batch gradient descent with a little L2 (the weights stay readable). */
function fitWeights(samples: Sample[]): FeatureVector {
  const w: FeatureVector = { ...WEIGHTS };
  const keys = Object.keys(w) as (keyof FeatureVector)[];
  for (let epoch = 0; epoch < 400; epoch++) {
    const grad = Object.fromEntries(keys.map((k) => [k, 0])) as FeatureVector;
    for (const { x, right } of samples) {
      let z = 0;
      for (const k of keys) z += w[k] * x[k];
      const error = 1 / (1 + Math.exp(-z)) - (right ? 1 : 0);
      for (const k of keys) grad[k] += error * x[k];
    }
    for (const k of keys) w[k] -= 0.5 * (grad[k] / samples.length + 0.001 * w[k]);
    // A property that disagrees is never evidence for a company, whatever the set's mix suggests.
    for (const k of keys) if (k.endsWith('Differs')) w[k] = Math.min(0, w[k]);
  }
  for (const k of keys) w[k] = Math.round(w[k] * 100) / 100;
  return w;
}
