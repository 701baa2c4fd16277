/**
 * The local stage's demo content: the generated companies and fixed tokens for two accounts.
 * These tokens exist only where this loader puts them (the local stage, tests); a deployed stage
 * never loads them.
 */
import type { Scope } from '../../lib/tokens/scopes';
import { SCOPES } from '../../lib/tokens/scopes';
import type { CompanyRecordInput } from '../../lib/companies/record';
import type { ImportOptions, ImportSummary } from '../../lib/import/import';
import type { DemoRecord } from '../../test/fixtures/demo-data/records';
import { DEMO_SNAPSHOT_DATE, olderSnapshotOf } from '../../test/fixtures/demo-data/snapshots';

/** The as-of date of the demo data: the day after its newest filing was received. */
export const DEMO_AS_OF = '2026-11-21';

export interface DemoToken {
  token: string;
  accountId: string;
  userEmail: string;
  scopes: Scope[];
  note: string;
}

export const DEMO_TOKENS = [
  {
    token: 'demo_acme_alice_all_scopes_0001',
    accountId: 'acme',
    userEmail: 'alice@acme.example',
    scopes: [...SCOPES],
    note: 'account acme, every scope',
  },
  {
    token: 'demo_acme_bob_companies_read_0002',
    accountId: 'acme',
    userEmail: 'bob@acme.example',
    scopes: ['companies:read'],
    note: 'account acme, companies:read only',
  },
  {
    token: 'demo_globex_carol_all_scopes_0003',
    accountId: 'globex',
    userEmail: 'carol@globex.example',
    scopes: [...SCOPES],
    note: 'account globex, every scope',
  },
  {
    token: 'demo_globex_dave_lists_only_0004',
    accountId: 'globex',
    userEmail: 'dave@globex.example',
    scopes: ['lists:read', 'lists:write'],
    note: 'account globex, lists only (companies endpoints answer 403)',
  },
] as const satisfies readonly DemoToken[];

/**
 * Imports the companies through the import (the one write path) into the table named by TABLE_NAME,
 * as of `asOf` (DEMO_AS_OF by default).
 */
export async function importDemoCompanies(
  records: Iterable<CompanyRecordInput>,
  options: Pick<ImportOptions, 'onProgress'> & { asOf?: string } = {},
): Promise<ImportSummary> {
  // Imported late: the storage client reads the environment when first used.
  const { importCompanies } = await import('../../lib/import/import');
  const rejected: string[] = [];
  const { asOf = DEMO_AS_OF, ...rest } = options;
  const summary = await importCompanies(linesOf(records), {
    asOf,
    onRejected: (line, reason) => rejected.push(`line ${line}: ${reason}`),
    ...rest,
  });
  // The generator makes valid records only: a rejection here is a bug in it, not bad luck.
  if (rejected.length > 0)
    throw new Error(`demo data rejected by the import:\n${rejected.slice(0, 5).join('\n')}`);
  return summary;
}

/** Stores the demo tokens (a persisted local stage already has them). */
export async function createDemoTokens(): Promise<void> {
  const { createToken } = await import('../../lib/tokens/tokens');
  for (const { token, accountId, userEmail, scopes } of DEMO_TOKENS) {
    await createToken({ accountId, userEmail, scopes: [...scopes], expiresAt: null }, token).catch(
      (error: Error) => {
        if (error.name !== 'ConditionalCheckFailedException') throw error;
      },
    );
  }
}

/**
 * The demo companies in two imports, as data arrives over time: their older snapshot as of
 * DEMO_SNAPSHOT_DATE, then the current data as of DEMO_AS_OF. The first derives each company's history,
 * the second what changed since (new periods, margin growth, health drops, people who left): the demo
 * feeds show every type of update (contract §8.2). The end state is the current data's.
 */
export async function importDemoSnapshots(
  records: readonly DemoRecord[],
  progress: {
    older?: ImportOptions['onProgress'];
    current?: ImportOptions['onProgress'];
    /** Called when the older snapshot is in, with its summary (the local stage times each import). */
    olderDone?: (summary: ImportSummary) => void;
  } = {},
  /** The older snapshot of `records`, when the caller made it already (`npm start` does, while Java boots). */
  olderRecords: readonly DemoRecord[] = olderSnapshotOf(records),
): Promise<{ older: ImportSummary; current: ImportSummary }> {
  const older = await importDemoCompanies(olderRecords, {
    asOf: DEMO_SNAPSHOT_DATE,
    ...(progress.older ? { onProgress: progress.older } : {}),
  });
  progress.olderDone?.(older);
  const current = await importDemoCompanies(records, {
    asOf: DEMO_AS_OF,
    ...(progress.current ? { onProgress: progress.current } : {}),
  });
  // Every profile of a new table came with its candidate entries; the recount says so per country
  // (`INDEX`), as an operator's `npm run match-counts` does on a stage (docs/import.md), so smart lists
  // read their candidates here as they do there.
  const { recountMatchCounts } = await import('../../lib/lists/match-recount');
  await recountMatchCounts();
  return { older, current };
}

/** Companies (both snapshots) and tokens: what a fresh local stage or test table starts with. */
export async function loadDemo(records: readonly DemoRecord[]): Promise<ImportSummary> {
  const { current } = await importDemoSnapshots(records);
  await createDemoTokens();
  return current;
}

async function* linesOf(records: Iterable<CompanyRecordInput>): AsyncGenerator<string> {
  for (const record of records) yield JSON.stringify(record);
}
