/** What `npm run bench:smart-lists` (smart-lists.ts) prints, against issue 10's budgets. */
import type { CreateFilter } from './smart-list-data';
import type { Written } from './storage-counts';

const CREATE_BUDGET_MS = 3000;
const IMPORT_BUDGET = 0.2;

/** One scenario's import figures, without and with the smart lists. */
export interface ScenarioResult {
  name: string;
  without: number;
  with: number;
  flips: number;
  completion: number;
  members: number;
  /** DynamoDB Local's CPU seconds a run (medians). */
  cpu: { without: number; with: number };
  /** The completion's steps, without and with the lists. */
  steps: Record<'without' | 'with', string[]>;
  /** Items, write requests and write units a run with the lists wrote beyond one without. */
  added: Written;
}

/** The creates over `total` companies, when they ran. */
export interface CreateFigures {
  total: number;
  best: CreateFilter;
  amount: number;
  creates: number[];
  median: number;
}

export function printSmartListFigures(
  create: CreateFigures | null,
  changedCount: number,
  listCount: number,
  results: readonly ScenarioResult[],
): void {
  console.log('');
  if (create)
    console.log(
      `Creating a smart list over ${create.total.toLocaleString('en')} companies (filter ${JSON.stringify(create.best.filters)}):`,
    );
  if (create)
    console.log(
      `  ${create.amount.toLocaleString('en')} companies, ${create.creates.map((ms) => ms.toFixed(0)).join(' / ')} ms (median ${create.median.toFixed(0)} ms, budget ${CREATE_BUDGET_MS} ms: ${create.median <= CREATE_BUDGET_MS ? 'PASS' : 'OVER'})`,
    );
  console.log(
    `Import of ${changedCount.toLocaleString('en')} changed companies, without and with ${listCount} smart lists (median of 4 runs each):`,
  );
  for (const r of results) {
    const added = r.with / r.without - 1;
    const perFlip = r.flips > 0 ? ((r.with - r.without) / r.flips).toFixed(2) : '–';
    console.log(
      `  ${r.name}: ${(r.without / 1000).toFixed(2)} s → ${(r.with / 1000).toFixed(2)} s (+${(added * 100).toFixed(1)} %, budget +${IMPORT_BUDGET * 100} %: ${added <= IMPORT_BUDGET ? 'PASS' : 'OVER'}); ` +
        `${r.flips} flips (${(r.flips / changedCount).toFixed(2)} a company, ${perFlip} ms each if they were all the cost), completion ${(r.completion / 1000).toFixed(2)} s; ` +
        `the lists hold ${r.members.toLocaleString('en')} companies (${(r.members / changedCount).toFixed(1)} lists a company)`,
    );
    const eachFlip = (n: number) => (r.flips > 0 ? (n / r.flips).toFixed(2) : '–');
    console.log(
      `    the lists add ${r.added.items.toLocaleString('en')} items in ${r.added.requests.toLocaleString('en')} write requests (${r.added.units.toFixed(0)} write units): ` +
        `${eachFlip(r.added.items)} items, ${eachFlip(r.added.requests)} requests, ${eachFlip(r.added.units)} write units per flip`,
    );
    if (!Number.isNaN(r.cpu.with))
      console.log(
        `    DynamoDB Local's CPU a run: ${r.cpu.without.toFixed(2)} s → ${r.cpu.with.toFixed(2)} s (+${((r.cpu.with / r.cpu.without - 1) * 100).toFixed(1)} %)`,
      );
    for (const kind of ['without', 'with'] as const) {
      console.log(`    completion step by step, ${kind} the lists:`);
      for (const line of r.steps[kind]) console.log(`      ${line}`);
    }
  }
}
