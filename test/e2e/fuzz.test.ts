/**
 * Fuzzing of every route through the local gateway (the real authorizer, handlers and DynamoDB Local):
 * requests generated from the published document and hostile mutations of them (test/fuzz/requests.ts),
 * seeded and bounded. For every answer: a status the document lists for the operation, a body that
 * holds its schema (the contract error shape with `requestId` = `x-request-id` for errors), no 5xx, no
 * internals; for a write route, the table's items are the same after a batch of rejected requests.
 *
 * `npm run fuzz -- --runs N` runs the same generators longer against a running stage.
 */
import { ScanCommand } from '@aws-sdk/client-dynamodb';
import fc from 'fast-check';
import { localClient } from '../../infra/local/dynamodb';
import { loadDemoLists } from '../../infra/local/demo-lists';
import { routes } from '../../lib/routes';
import { legalEntityIdsOf, operationsOf, requestsFor, type FuzzContext } from '../fuzz/requests';
import { cleanUpDeletedLists } from '../../lib/lists/store';
import { fuzzCheck, inFuzzOrder, isWrite, sendFuzzRequest } from '../fuzz/check';
import { contract } from '../support/openapi';
import { TOKENS, useApi } from './http';

/** Requests per route: fast-check runs × requests per run. */
const RUNS = Number(process.env['FUZZ_RUNS'] ?? 100);
const BATCH = 20;
const SEED = 20261122;
/** A route's 2,000 requests take seconds on a quiet machine; a busy one (CI, shared cores) gets room. */
const ROUTE_TIMEOUT_MS = 240_000;

const api = useApi();
const context: FuzzContext = {
  companies: api.records.slice(0, 30).map((r) => ({ country: r.country, companyNumber: r.companyNumber })),
  listIds: ['1', '2', '3', '4', '5', '6', '7'],
  legalEntityIds: legalEntityIdsOf(api.records.slice(0, 30)),
  token: TOKENS.alice,
  otherTokens: [TOKENS.bob, TOKENS.carol, TOKENS.dave],
};
const operations = inFuzzOrder(operationsOf(contract));

beforeAll(async () => {
  context.listIds = (await loadDemoLists(api.records)).map(String);
});

async function tableItems(): Promise<string[]> {
  const client = localClient(process.env['DYNAMODB_ENDPOINT']!);
  const items: string[] = [];
  let start: Record<string, unknown> | undefined;
  try {
    do {
      const page = await client.send(
        new ScanCommand({ TableName: api.tableName(), ExclusiveStartKey: start as never }),
      );
      for (const item of page.Items ?? []) items.push(JSON.stringify(item, Object.keys(item).sort()));
      start = page.LastEvaluatedKey;
    } while (start);
  } finally {
    client.destroy();
  }
  return items.sort();
}

describe('fuzzing every route', () => {
  it('covers every route of the document', () => {
    expect(operations.map((o) => o.routeId).sort()).toEqual(Object.keys(routes).sort());
  });

  it.each(operations)(
    '$routeId ($method $path): 2,000 generated requests',
    async (operation) => {
      const writes = isWrite(operation);
      const statuses = new Map<number, number>();
      let sent = 0;
      let rejectedBatchesCompared = 0;
      const result = await fc.check(
        fc.asyncProperty(
          // Half the batches of a write route are hostile only: those are mostly rejected whole.
          fc.boolean().chain((hostileOnly) =>
            fc.array(requestsFor(operation, context, writes && hostileOnly), {
              minLength: BATCH,
              maxLength: BATCH,
            }),
          ),
          async (batch) => {
            // A list deleted by an earlier batch is cleaned up in the background (every second on the local
            // stage): finish that first, so the items compared change only by this batch.
            if (writes) await cleanUpDeletedLists();
            const before = writes ? await tableItems() : null;
            // Side by side, writes too (callers do that); a write batch rejected whole must leave every item as it was.
            const answers = await Promise.all(
              batch.map((request) => sendFuzzRequest(api.baseUrl(), request)),
            );
            answers.forEach((answer, i) => {
              sent++;
              statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
              const problems = fuzzCheck(batch[i]!, answer, api.tableName());
              if (problems.length > 0) {
                throw new Error(
                  `${problems.join('; ')}\n  after ${batch[i]!.mutation}: ${batch[i]!.method} ${batch[i]!.url.slice(0, 300)}`,
                );
              }
            });
            if (before && answers.every((answer) => answer.status >= 400)) {
              rejectedBatchesCompared++;
              expect(await tableItems()).toEqual(before);
            }
          },
        ),
        // The failing request is named in the error: no shrinking, which would resend thousands.
        { seed: SEED, numRuns: RUNS, endOnFailure: true },
      );
      if (result.failed) {
        const error =
          result.errorInstance instanceof Error ? result.errorInstance.message : String(result.errorInstance);
        throw new Error(`seed ${SEED}, run ${result.numRuns}: ${error.slice(0, 2000)}`);
      }
      expect(sent).toBeGreaterThanOrEqual(RUNS * BATCH);
      // Not only rejections: the generator also reaches answers that succeed.
      expect([...statuses.keys()].some((status) => status < 300)).toBe(true);
      if (writes) expect(rejectedBatchesCompared).toBeGreaterThan(0);
    },
    ROUTE_TIMEOUT_MS,
  );
});
