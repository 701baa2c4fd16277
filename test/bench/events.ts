/**
 * `npm run bench:events`: what deriving events (contract §12) adds to an import. On its own DynamoDB
 * Local table: N companies imported, then a new period for each imported twice — first with no watched
 * list, then with every company in one of 50 notification-enabled static lists (10 accounts × 5) — so
 * both imports change N companies and derive one update each. Prints the DynamoDB requests per changed
 * company of each (counts: what the machine's load does not change), the CPU of this process per
 * company and the wall time (both skewed by other work on a loaded machine), and the events written.
 * A first refresh runs without the events derivation at all (the import as it was before it), a
 * second with it but no watched list, the third with the 50 lists.
 *
 *   npm run bench:events                    10,000 companies
 *   npm run bench:events -- --companies 2000
 */
import { parseArgs } from 'node:util';
import type { CompanyChange } from '../../lib/import/change';
import { benchDynamoDb } from './local-dynamodb';

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { companies: { type: 'string', default: '10000' } } });
  const n = Number(values.companies);
  if (!Number.isInteger(n) || n < 50) throw new Error('--companies takes an integer of at least 50');
  process.env['AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED'] = 'true';
  const { endpoint, stop } = await benchDynamoDb({ log: console.error });
  process.env['DYNAMODB_ENDPOINT'] = endpoint;
  process.env['TABLE_NAME'] = `events-bench-${Date.now()}`;
  try {
    const { ensureTable } = await import('../../infra/local/dynamodb');
    await ensureTable(endpoint, process.env['TABLE_NAME']);
    const { importCompanies } = await import('../../lib/import/import');
    const { recordCalls } = await import('../support/dynamodb-calls');
    const { companyRecord, period } = await import('../support/records');
    const { createList } = await import('../../lib/lists/store/lists');
    const { addMembers } = await import('../../lib/lists/store/members');
    const { lastEventNumber } = await import('../../lib/events/store');

    const base = Array.from({ length: n }, (_, i) =>
      companyRecord({
        country: 'NL',
        companyNumber: String(60_000_000 + i),
        name: `Bench ${i} BV`,
        vatNumber: null,
        website: null,
        shareholders: [],
        contacts: [],
        financials: [period(2020)],
      }),
    );
    const version = (years: number[]) =>
      base.map((r) => ({ ...r, financials: years.map((year) => period(year)) }));
    const { deriveHoldings } = await import('../../lib/companies/holdings');
    const { deriveLookalikes } = await import('../../lib/lookalikes/recompute');
    // The batch derivations without the events one: the import before notifications.
    const withoutEvents = async (changes: CompanyChange[]) => {
      const holdings = await deriveHoldings(changes);
      const lookalikes = await deriveLookalikes(changes);
      return {
        updates: holdings.updates + lookalikes.updates,
        writes: {
          puts: [...(holdings.writes?.puts ?? []), ...(lookalikes.writes?.puts ?? [])],
          deletes: [...(holdings.writes?.deletes ?? []), ...(lookalikes.writes?.deletes ?? [])],
        },
      };
    };
    const run = async (label: string, records: typeof base, events = true) => {
      async function* lines() {
        for (const record of records) yield JSON.stringify(record);
      }
      const cpu = process.cpuUsage();
      const started = performance.now();
      const { result, calls } = await recordCalls(() =>
        importCompanies(lines(), { asOf: '2026-11-25', ...(events ? {} : { deriveBatch: withoutEvents }) }),
      );
      const seconds = (performance.now() - started) / 1000;
      const used = process.cpuUsage(cpu);
      const byCommand = new Map<string, number>();
      for (const call of calls) byCommand.set(call.command, (byCommand.get(call.command) ?? 0) + 1);
      const changed = result.created + result.changed;
      const per = (count: number) => (count / changed).toFixed(3);
      console.log(
        `${label}: ${changed} changed, ${result.updates} updates, ${per(calls.length)} requests per changed company ` +
          `(${[...byCommand].map(([command, count]) => `${command} ${per(count)}`).join(', ')}), ` +
          `${((used.user + used.system) / 1000 / changed).toFixed(2)} ms CPU per company here, ${seconds.toFixed(1)} s wall`,
      );
      return { requests: calls.length / changed, cpuMs: (used.user + used.system) / 1000 / changed, seconds };
    };

    await run('first import (setup)', base);
    const before = await run(
      'new period, no events derivation (the import before it)',
      version([2020, 2021]),
      false,
    );
    const without = await run('new period, no watched list', version([2020, 2021, 2022]));
    const accounts = Array.from({ length: 10 }, (_, i) => `bench-account-${i}`);
    const perList = Math.ceil(n / 50);
    for (let l = 0; l < 50; l++) {
      const accountId = accounts[l % accounts.length]!;
      const list = await createList({
        accountId,
        name: `Watched ${l}`,
        type: 'STATIC',
        columns: [],
        shared: true,
        notificationsEnabled: true,
        createdBy: 'bench@bench.example',
        createdAt: new Date().toISOString(),
        filters: null,
      });
      const members = base.slice(l * perList, (l + 1) * perList);
      for (let i = 0; i < members.length; i += 100) {
        await addMembers(
          accountId,
          list.id,
          members
            .slice(i, i + 100)
            .map((r) => ({ ref: { country: 'NL', companyNumber: r.companyNumber }, contacts: 0 })),
          { state: 'SAVED', now: new Date() },
        );
      }
    }
    const watched = await run(
      'new period, every company in one of 50 watched lists',
      version([2020, 2021, 2022, 2023]),
    );
    let events = 0;
    for (const accountId of accounts) events += await lastEventNumber(accountId);
    const more = (a: number, b: number) => `+${((a / b - 1) * 100).toFixed(1)} %`;
    console.log(`events written: ${events}`);
    for (const [label, r] of [
      ['no watched list', without],
      ['50 watched lists', watched],
    ] as const) {
      console.log(
        `${label} vs the import before: requests per changed company ${more(r.requests, before.requests)}, ` +
          `CPU here ${more(r.cpuMs, before.cpuMs)}, wall ${more(r.seconds, before.seconds)} (CPU and wall on a loaded machine: indicative only)`,
      );
    }
  } finally {
    await stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
