/**
 * What `npm run bench:smart-lists` (smart-lists.ts) runs on: the filter its creates use, the changed
 * companies its imports bring, and the smart lists defined during those imports. All from the demo
 * data and a seeded generator, so every run builds the same.
 */
import { matchesFilters, type FilterProfile } from '../../lib/lists/filters';
import { generateDemoData } from '../fixtures/demo-data/companies';
import type { DemoRecord } from '../fixtures/demo-data/records';
import { olderSnapshotOf } from '../fixtures/demo-data/snapshots';

type Country = 'BE' | 'NL' | 'FR';
export interface CreateFilter {
  filters: { countries: [Country]; activities: string[] };
  count: number;
}

/** The filter closest to `target` matches: one country, its most common NACE divisions added in turn. */
export function closestFilter(profiles: readonly FilterProfile[], target: number): CreateFilter | null {
  let best: CreateFilter | null = null;
  for (const country of ['BE', 'NL', 'FR'] as const) {
    const divisions = new Map<string, number>();
    for (const p of profiles) {
      if (p.country !== country) continue;
      for (const d of new Set(p.activities.map((a) => a.slice(0, 2))))
        divisions.set(d, (divisions.get(d) ?? 0) + 1);
    }
    const activities: string[] = [];
    for (const [division] of [...divisions].sort((a, b) => b[1] - a[1])) {
      activities.push(division);
      const filters = { countries: [country] as [Country], activities: [...activities] };
      const count = profiles.filter((p) => matchesFilters(filters, p)).length;
      if (!best || Math.abs(count - target) < Math.abs(best.count - target)) best = { filters, count };
      if (count >= target) break;
    }
  }
  return best;
}

/** One kind of change an import brings: the companies as first imported, then as changed. */
export interface Scenario {
  name: string;
  from: DemoRecord[];
  to: DemoRecord[];
  /** How many companies' contact counts change. */
  contacts: number;
}

/**
 * `changedCount` demo companies whose registry data changed between the demo's two snapshots (new
 * accounts filed, people left: the change an import of a registry extract mostly brings), and two
 * scenarios over them: that change, and the worst case for flips (every company moves to another
 * place, every third one also changes activity; its contacts stay as they are).
 */
export function changeScenarios(changedCount: number): {
  current: DemoRecord[];
  places: string[];
  codes: string[];
  scenarios: Scenario[];
} {
  const pool = generateDemoData({ companies: changedCount * 8 });
  const olderPool = olderSnapshotOf(pool);
  const picked = pool
    .map((current, i) => ({ current, older: olderPool[i]! }))
    .filter(({ current, older }) => JSON.stringify(current) !== JSON.stringify(older))
    .slice(0, changedCount);
  if (picked.length < changedCount) throw new Error(`only ${picked.length} changed demo companies`);
  const current = picked.map((p) => p.current);
  const older = picked.map((p) => p.older);
  const places = [...new Set(current.map((r) => r.place))];
  const codes = [...new Set(current.flatMap((r) => r.activities))];
  const moved = current.map((r, i) => ({
    ...r,
    place: places[(places.indexOf(r.place) + 1 + (i % 7)) % places.length]!,
    activities: i % 3 === 0 ? [codes[(i * 31) % codes.length]!, ...r.activities.slice(1)] : r.activities,
  }));
  const contactsChanged = picked.filter((p) => p.current.contacts.length !== p.older.contacts.length).length;
  const scenarios = [
    {
      name: `new accounts filed, people left (${contactsChanged} contact counts change)`,
      from: older,
      to: current,
      contacts: contactsChanged,
    },
    { name: 'every company moves', from: current, to: moved, contacts: 0 },
  ];
  return { current, places, codes, scenarios };
}

/**
 * The filters of `listCount` smart lists, a realistic mix of criteria: countries, NACE divisions and
 * places of the companies, and ranges cut where the data is (bounds at quantiles of the companies' own
 * latest figures). Seeded: the same lists every run.
 */
export function randomListFilters(
  current: readonly DemoRecord[],
  places: readonly string[],
  codes: readonly string[],
  listCount: number,
): Record<string, unknown>[] {
  let random = 11;
  const next = () => {
    random = (Math.imul(random ^ (random >>> 15), 0x2c1b3c6d) + 0x9e3779b9) >>> 0;
    return random / 4294967296;
  };
  const pick = <T>(items: readonly T[], n: number) => [
    ...new Set(Array.from({ length: n }, () => items[Math.floor(next() * items.length)]!)),
  ];
  const divisions = [...new Set(codes.map((c) => c.slice(0, 2)))];
  const latest = current.map((r) => r.financials[0]).filter((p) => p !== undefined);
  const quantiles = (values: (number | null)[]) => {
    const sorted = values.filter((x): x is number => x !== null).sort((a, b) => a - b);
    return (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
  };
  const figures = {
    employees: quantiles(latest.map((p) => p.people.employees)),
    totalAssets: quantiles(latest.map((p) => p.solvency.totalAssets)),
    healthIndicator: quantiles(latest.map((p) => p.healthIndicator)),
  };
  const rangeOf = (quantile: (q: number) => number) => {
    const low = next() * 0.8;
    const high = low + 0.2 + next() * (1 - low - 0.2);
    if (next() < 0.4) return { min: quantile(low) };
    if (next() < 0.3) return { max: quantile(high) };
    return { min: quantile(low), max: quantile(high) };
  };
  return Array.from({ length: listCount }, () => {
    const filters: Record<string, unknown> = {};
    if (next() < 0.7) filters['countries'] = pick(['BE', 'NL', 'FR'], 1 + Math.floor(next() * 2));
    if (next() < 0.6) filters['activities'] = pick(divisions, 1 + Math.floor(next() * 3));
    if (next() < 0.2) filters['places'] = pick(places, 1 + Math.floor(next() * 2));
    if (next() < 0.4) filters['employees'] = rangeOf(figures.employees);
    if (next() < 0.25) filters['totalAssets'] = rangeOf(figures.totalAssets);
    if (next() < 0.3 || Object.keys(filters).length === 0)
      filters['healthIndicator'] = rangeOf(figures.healthIndicator);
    return filters;
  });
}
