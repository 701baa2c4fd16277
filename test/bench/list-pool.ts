/**
 * The lists the list DELETE case (cases.ts) deletes: one of its own for each call, each in an account
 * named after its id (an account holds at most 200 lists), their ids in BENCH_POOL_FILE for the runners.
 */
import { writeFileSync } from 'node:fs';
import type { BenchData } from './bench-case';

export async function writeListPool({ callsPerFunction }: BenchData): Promise<void> {
  const { createList } = await import('../../lib/lists/store/lists');
  const { drawListId } = await import('../../lib/lists/store/list-ids');
  const pool: number[] = [];
  // '{{pooled}}' takes the pool's id at '{{seq}}', which counts this function's calls: one list each.
  for (let i = 0; i < 2 * callsPerFunction + 10; i++) {
    const id = drawListId();
    const list = await createList(
      {
        accountId: `pool-${id}`,
        name: `Bench pool ${i}`,
        type: 'STATIC',
        columns: [],
        shared: false,
        notificationsEnabled: false,
        createdBy: 'alice@acme.example',
        createdAt: new Date().toISOString(),
        filters: null,
      },
      { id },
    );
    pool.push(list.id);
  }
  writeFileSync(process.env['BENCH_POOL_FILE']!, JSON.stringify(pool));
}
