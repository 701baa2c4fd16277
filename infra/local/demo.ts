/**
 * The local stage's demo content: the generated companies and fixed tokens for two accounts.
 * These tokens exist only where this loader puts them (the local stage, tests); a deployed stage
 * never loads them.
 */
import type { Scope } from '../../lib/tokens/scopes';
import { SCOPES } from '../../lib/tokens/scopes';
import type { CompanyRecord } from '../../lib/companies/company';

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

/** Loads companies and demo tokens into the table named by TABLE_NAME (env set by the caller). */
export async function loadDemo(records: CompanyRecord[]): Promise<void> {
  // Imported late: the storage client reads DYNAMODB_ENDPOINT when it is first loaded.
  const { putCompanyRecords } = await import('../../lib/storage/store');
  const { createToken } = await import('../../lib/tokens/tokens');
  await putCompanyRecords(records);
  for (const demo of DEMO_TOKENS) {
    const { token, accountId, userEmail, scopes } = demo;
    await createToken({ accountId, userEmail, scopes: [...scopes], expiresAt: null }, token).catch(
      (error: Error) => {
        // A persisted local stage already has them.
        if (error.name !== 'ConditionalCheckFailedException') throw error;
      },
    );
  }
}
