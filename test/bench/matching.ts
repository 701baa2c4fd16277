/**
 * `npm run bench:matching`: how well PUT /v1/lists/{id}/companies finds companies (contract §7.5), on a
 * labelled set generated from the demo data. Each entry is made from one company with 1–3 of its
 * properties, each written the way customers write them (number forms, VAT forms, website variants,
 * name variants: case, accents, punctuation, legal form dropped/changed/added, word order), with or
 * without `country`; besides, entries that must fail (unknown numbers, properties of two companies).
 * An entry whose properties fit several companies equally (a name or website two companies share)
 * is labelled "must fail" by the raw data, not by the matcher.
 *
 * It runs the matcher itself (planEntry → lookups → decide) over an in-memory copy of the match
 * indexes, built by the import's own `matchKeysOf`: no DynamoDB needed. Prints precision and recall
 * overall and per property combination, and the budgets: precision ≥ 99.5 % and recall ≥ 97 % on
 * entries with ≥ 2 properties, precision ≥ 99.5 % on name-only entries with country.
 *
 * Then the match endpoint's engine (contract §6.5, lib/matching/candidates.ts) over the same entries
 * and noisier ones (typos, trade names, a place given, right or wrong, one name in two places): the
 * precision of candidates with confidence ≥ 0.9 (goal ≥ 99 %), the share of entries with ≥ 2
 * properties whose company is the top candidate (goal ≥ 97 %), and a reliability table (confidence
 * band → share correct). `--fit` fits the confidence model's weights on this set and prints them for
 * lib/matching/confidence.ts.
 *
 *   npm run bench:matching [-- --companies 3000 --seed 7] [-- --fit]
 */
import { parseArgs } from 'node:util';
import { generateDemoData } from '../fixtures/demo-data/companies';
import type { DemoRecord } from '../fixtures/demo-data/records';
import { companyKey } from '../../lib/companies/identifiers';
import { decide, planEntry, type MatchEntry } from '../../lib/matching/decide';
import { foundOf, noisyEntries, reportMatch, sourcesOf } from './match-confidence';

type Property = 'companyNumber' | 'VAT' | 'website' | 'name';

interface Labelled {
  entry: MatchEntry;
  /** The company the entry must find, or null when it must fail. */
  expected: string | null;
  /** The company the entry was written from (what a candidate must be to be right); null for none. */
  meant: string | null;
  combination: string;
}

const { values } = parseArgs({
  options: { companies: { type: 'string' }, seed: { type: 'string' }, fit: { type: 'boolean' } },
});
const records = generateDemoData({ companies: Number(values.companies ?? 3000) });
let state = Number(values.seed ?? 7) >>> 0 || 7;
const random = () => {
  state = (Math.imul(state ^ (state >>> 15), 0x2c1b3c6d) + 0x9e3779b9) >>> 0;
  state ^= state >>> 13;
  return (state >>> 0) / 4294967296;
};
const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;

// ---- The store the matcher sees, built as the import builds it ------------------------------------

const found = foundOf(records);

// ---- Labels from the raw data: which names and websites several companies share -----------------

const stem = (r: DemoRecord) => `${r.country}#${r.name.slice(0, r.name.lastIndexOf(' ')).toLowerCase()}`;
const host = (r: DemoRecord) => (r.website ? new URL(r.website).hostname : null);
const count = <T>(values: T[]) =>
  values.reduce((m, v) => m.set(v, (m.get(v) ?? 0) + 1), new Map<T, number>());
const stems = count(records.map(stem));
const stemsAnyCountry = count(records.map((r) => stem(r).slice(3)));
const hosts = count(records.map(host).filter((h): h is string => h !== null));
/** Website and name together: counted once here rather than by scanning every record per entry. */
const hostStem = (r: DemoRecord) => `${host(r)} ${stem(r)}`;
const hostStems = count(records.filter((r) => r.website).map(hostStem));

// ---- Variants -------------------------------------------------------------------------------------

function numberForm(r: DemoRecord): string {
  const n = r.companyNumber;
  switch (r.country) {
    case 'BE':
      return pick([
        n,
        `${n.slice(0, 4)}.${n.slice(4, 7)}.${n.slice(7)}`,
        `BE${n}`,
        `BE ${n}`,
        n.slice(1),
        `${n.slice(0, 4)} ${n.slice(4)}`,
      ]);
    case 'NL':
      return pick([n, `${n.slice(0, 4)} ${n.slice(4)}`]);
    case 'FR':
      return pick([n, `${n.slice(0, 3)} ${n.slice(3, 6)} ${n.slice(6)}`, `${n}00012`, r.vatNumber]);
  }
}

function vatForm(r: DemoRecord): string {
  const v = r.vatNumber;
  return pick([
    v,
    v.toLowerCase(),
    `${v.slice(0, 2)} ${v.slice(2)}`,
    v.replace(/(\d{3})(?=\d)/g, '$1.'),
    ` ${v} `,
  ]);
}

function websiteForm(r: DemoRecord): string {
  const h = new URL(r.website!).hostname.replace(/^www\./, '');
  return pick([
    r.website!,
    h,
    `www.${h}`,
    `http://${h}/`,
    `https://www.${h}/contact`,
    `HTTPS://WWW.${h.toUpperCase()}`,
    `https://shop.${h}/nl/`,
  ]);
}

const LEGAL_FORMS = ['NV', 'BV', 'SA', 'SRL', 'SAS', 'SARL', 'BVBA', 'GmbH', 'B.V.', 'N.V.', 'S.A.'];
function nameForm(r: DemoRecord): string {
  const words = r.name.split(' ');
  const base = words.slice(0, -1);
  const variants = [
    () => r.name,
    () => r.name.toUpperCase(),
    () => r.name.toLowerCase(),
    () => base.join(' '),
    () => `${base.join(' ')} ${pick(LEGAL_FORMS)}`,
    () => r.name.normalize('NFD').replace(/[\u0300-\u036f]/g, ''),
    () => `${base.join(' ')}, ${words.at(-1)}`,
    () => [...base].reverse().join(' '),
    () => base.join(' ').replace(/&/g, 'and').replace(/ and /g, ' & '),
    () => `${base.join('-')} ${words.at(-1)!.replace(/\./g, '')}`,
  ];
  return pick(variants)();
}

const FORM: Record<Property, (r: DemoRecord) => string> = {
  companyNumber: numberForm,
  VAT: vatForm,
  website: websiteForm,
  name: nameForm,
};

const COMBINATIONS: Property[][] = [
  ['companyNumber'],
  ['VAT'],
  ['website'],
  ['name'],
  ['companyNumber', 'name'],
  ['VAT', 'name'],
  ['website', 'name'],
  ['companyNumber', 'VAT'],
  ['VAT', 'website'],
  ['companyNumber', 'website', 'name'],
  ['VAT', 'website', 'name'],
];

function labelledSet(): Labelled[] {
  const set: Labelled[] = [];
  for (const r of records) {
    for (const properties of COMBINATIONS) {
      if (properties.includes('website') && !r.website) continue;
      const withCountry =
        properties.length === 1 && properties[0] === 'name' ? random() < 0.8 : random() < 0.5;
      const entry: MatchEntry = {};
      for (const p of properties) entry[p] = FORM[p](r);
      if (withCountry) entry.country = pick([r.country, r.country.toLowerCase()]);
      // What the raw data says the entry can mean.
      const onlyName = properties.length === 1 && properties[0] === 'name';
      const onlyWebsite = properties.length === 1 && properties[0] === 'website';
      const nameShared = withCountry ? stems.get(stem(r))! > 1 : stemsAnyCountry.get(stem(r).slice(3))! > 1;
      const websiteShared = (hosts.get(host(r)!) ?? 0) > 1;
      const nameAndWebsiteShared =
        properties.length === 2 &&
        properties.includes('website') &&
        properties.includes('name') &&
        hostStems.get(hostStem(r))! > 1;
      const ambiguous = (onlyName && nameShared) || (onlyWebsite && websiteShared) || nameAndWebsiteShared;
      const label = `${properties.join('+')}${withCountry ? '+country' : ''}`;
      set.push({
        entry,
        expected: ambiguous ? null : companyKey(r),
        meant: companyKey(r),
        combination: label,
      });
    }
  }
  // Must fail: unknown numbers, and properties of two different companies.
  for (let i = 0; i < records.length; i++) {
    const a = records[i]!;
    // Of another country, and of the same country (15 further on: the demo data cycles BE, NL, FR).
    const b = records[(i * 7 + 13) % records.length]!;
    const c = records[(i + 15) % records.length]!;
    if (stem(a) !== stem(c)) {
      set.push({
        entry: { companyNumber: numberForm(a), country: a.country, name: nameForm(c) },
        expected: null,
        meant: null,
        combination: 'fail: number ≠ name, same country',
      });
    }
    const unknown = a.country === 'NL' ? `${(Number(a.companyNumber) + 1) % 1e8}`.padStart(8, '0') : null;
    if (unknown && !found.exists(`NL#${unknown}`)) {
      set.push({
        entry: { companyNumber: unknown, country: 'NL', name: nameForm(a) },
        expected: null,
        meant: null,
        combination: 'fail: unknown number',
      });
    }
    if (a !== b) {
      set.push({
        entry: { companyNumber: numberForm(a), country: a.country, VAT: vatForm(b) },
        expected: null,
        meant: null,
        combination: 'fail: number ≠ VAT',
      });
      if (stem(a) !== stem(b)) {
        set.push({
          entry: { VAT: vatForm(a), name: b.name },
          expected: null,
          meant: null,
          combination: 'fail: VAT ≠ name',
        });
      }
    }
  }
  return set;
}

// ---- Run and report --------------------------------------------------------------------------------

interface Tally {
  entries: number;
  shouldMatch: number;
  matched: number;
  correct: number;
  wrong: number;
}
const tallies = new Map<string, Tally>();
const tally = (name: string) => {
  let t = tallies.get(name);
  if (!t) tallies.set(name, (t = { entries: 0, shouldMatch: 0, matched: 0, correct: 0, wrong: 0 }));
  return t;
};

const started = performance.now();
const set = labelledSet();
for (const { entry, expected, combination } of set) {
  const decision = decide(planEntry(entry), found);
  const properties = combination.startsWith('fail')
    ? 0
    : combination.split('+').filter((p) => p !== 'country').length;
  const groups = [
    combination,
    'overall',
    ...(properties >= 2 ? ['≥ 2 properties'] : []),
    ...(combination === 'name+country' ? ['name only, with country'] : []),
  ];
  for (const group of groups) {
    const t = tally(group);
    t.entries++;
    if (expected) t.shouldMatch++;
    if (decision.ok) {
      t.matched++;
      if (decision.company === expected) t.correct++;
      else t.wrong++;
    }
  }
}
const ms = performance.now() - started;

const pct = (n: number, d: number) => (d === 0 ? '—' : `${((100 * n) / d).toFixed(2)} %`);
const rows = [...tallies.entries()].sort(([a], [b]) =>
  a === 'overall' ? -1 : b === 'overall' ? 1 : a.localeCompare(b),
);
console.log(
  `matching benchmark: ${records.length} demo companies, ${set.length} labelled entries, ${ms.toFixed(0)} ms\n`,
);
console.log(
  `${'combination'.padEnd(40)}${'entries'.padStart(9)}${'must match'.padStart(12)}${'matched'.padStart(9)}${'wrong'.padStart(7)}${'precision'.padStart(12)}${'recall'.padStart(10)}`,
);
for (const [name, t] of rows) {
  console.log(
    `${name.padEnd(40)}${String(t.entries).padStart(9)}${String(t.shouldMatch).padStart(12)}${String(t.matched).padStart(9)}${String(t.wrong).padStart(7)}${pct(t.correct, t.matched).padStart(12)}${pct(t.correct, t.shouldMatch).padStart(10)}`,
  );
}

const budget = (what: string, t: Tally | undefined, precision: number, recall: number | null) => {
  if (!t) return;
  const p = t.matched === 0 ? 1 : t.correct / t.matched;
  const r = t.shouldMatch === 0 ? 1 : t.correct / t.shouldMatch;
  const ok = p >= precision && (recall === null || r >= recall);
  console.log(
    `${ok ? 'PASS' : 'OVER'}  ${what}: precision ${pct(t.correct, t.matched)} (≥ ${precision * 100} %)` +
      (recall === null
        ? `, recall ${pct(t.correct, t.shouldMatch)}`
        : `, recall ${pct(t.correct, t.shouldMatch)} (≥ ${recall * 100} %)`),
  );
};
console.log('\nBudgets');
budget('entries with ≥ 2 properties', tallies.get('≥ 2 properties'), 0.995, 0.97);
budget('name only, with country', tallies.get('name only, with country'), 0.995, null);

// ---- The match endpoint (§6.5): candidates and their confidence ------------------------------------

reportMatch([...set, ...noisyEntries(records, random)], sourcesOf(records, found), values.fit ?? false);
