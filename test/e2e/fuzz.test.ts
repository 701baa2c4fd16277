/**
 * Fuzzing of every route through the local gateway (the real authorizer, handlers and DynamoDB Local):
 * requests generated from the published document and hostile mutations of them (test/fuzz/requests.ts),
 * seeded and bounded. For every answer: a status the document lists for the operation, a body that
 * holds its schema (the contract error shape with `requestId` = `x-request-id` for errors), no 5xx, no
 * internals; for a write route, the items it may write (its storage declaration) are the same after a
 * batch of rejected requests.
 *
 * `npm run fuzz -- --runs N` runs the same generators longer against a running stage.
 */
import { ScanCommand, UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import fc from 'fast-check';
import { localClient } from '../../infra/local/dynamodb';
import { loadDemoLists } from '../../infra/local/demo-lists';
import { routes, type RouteId } from '../../lib/routes';
import { WRITE_ACTIONS, type StorageAccess } from '../../lib/storage/access';
import * as keys from '../../lib/storage/keys';
import {
  fuzzCompany,
  legalEntityIdsOf,
  operationsOf,
  type FuzzContext,
  type Operation,
} from '../fuzz/operations';
import { requestsFor } from '../fuzz/requests';
import { cleanUpDeletedLists } from '../../lib/lists/store/clean-up';
import { fuzzCheck, inFuzzOrder, isWrite, sendFuzzRequest } from '../fuzz/check';
import { contract } from '../support/openapi';
import { TOKENS, useApi } from './http';

/**
 * Requests per route: fast-check runs × requests per run. 1,000 a route by default: the whole suite
 * must stay within 8 minutes on 2 cores, and this file is its longest (`FUZZ_RUNS=100` for 2,000; CI
 * also runs `npm run fuzz` against its stage).
 */
const RUNS = Number(process.env['FUZZ_RUNS'] ?? 50);
const BATCH = 20;
const SEED = 20261122;
/** A route's 1,000 requests take seconds on a quiet machine; a busy one (CI, shared cores) gets room. */
const ROUTE_TIMEOUT_MS = 240_000;

// No background workers: they change what the write routes' rejected batches are compared on (the
// delivery worker takes the jobs the webhook test route queued).
const api = useApi({ runWorkers: false });
const context: FuzzContext = {
  companies: api.records.slice(0, 30).map(fuzzCompany),
  listIds: ['1', '2', '3', '4', '5', '6', '7'],
  legalEntityIds: legalEntityIdsOf(api.records.slice(0, 30)),
  token: TOKENS.alice,
  otherTokens: [TOKENS.bob, TOKENS.carol, TOKENS.dave],
};
const operations = inFuzzOrder(operationsOf(contract));

beforeAll(async () => {
  context.listIds = (await loadDemoLists(api.records)).map(String);
  // Two endpoints of Alice's account for the webhook routes' ids (creations may add three more).
  const { createWebhook } = await import('../../lib/webhooks/webhooks');
  const alice = { accountId: 'acme', userEmail: 'alice@acme.example', scopes: [] };
  context.webhookIds = await Promise.all(
    ['http://127.0.0.1:9/a', 'http://127.0.0.1:9/b'].map(
      async (url) => (await createWebhook(alice, { url })).body.id,
    ),
  );
});

const scanner = localClient(process.env['DYNAMODB_ENDPOINT']!);
afterAll(() => scanner.destroy());

/**
 * The partition key prefixes a route may write (its storage declaration: on AWS its IAM policy, here
 * the storage client's check, refuse any other write), so the items a rejected write could change.
 */
function writablePrefixes(operation: Operation): string[] {
  const storage: StorageAccess = routes[operation.routeId as RouteId].storage;
  const prefixes = WRITE_ACTIONS.flatMap((action) =>
    (storage[action] ?? []).map(({ pattern }) => pattern.split('*')[0]!),
  );
  return [...new Set(prefixes)].filter((p, _, all) => !all.some((q) => q !== p && p.startsWith(q)));
}

/**
 * Every item under those prefixes, each as text (its attributes in name order, values whole), sorted:
 * a parallel Scan in four segments with a filter, which reads far less than the whole table.
 */
async function writableItems(operation: Operation): Promise<string[]> {
  const prefixes = writablePrefixes(operation);
  const segments = 4;
  const pages = await Promise.all(
    Array.from({ length: segments }, async (_, segment) => {
      const items: string[] = [];
      let start: Record<string, unknown> | undefined;
      do {
        const page = await scanner.send(
          new ScanCommand({
            TableName: api.tableName(),
            Segment: segment,
            TotalSegments: segments,
            FilterExpression: prefixes.map((_, i) => `begins_with(pk, :p${i})`).join(' OR '),
            ExpressionAttributeValues: Object.fromEntries(prefixes.map((p, i) => [`:p${i}`, { S: p }])),
            ExclusiveStartKey: start as never,
          }),
        );
        for (const item of page.Items ?? []) {
          items.push(
            JSON.stringify(
              Object.keys(item)
                .sort()
                .map((name) => [name, item[name]]),
            ),
          );
        }
        start = page.LastEvaluatedKey;
      } while (start);
      return items;
    }),
  );
  return pages.flat().sort();
}

describe('fuzzing every route', () => {
  it('covers every route of the document', () => {
    expect(operations.map((o) => o.routeId).sort()).toEqual(Object.keys(routes).sort());
  });

  it('compares what a write route could change, values included (a changed list name is seen)', async () => {
    const updateList = operations.find((o) => o.routeId === 'updateList')!;
    const key = marshall(keys.list('acme', Number(context.listIds[0])));
    const rename = (name: string) =>
      scanner.send(
        new UpdateItemCommand({
          TableName: api.tableName(),
          Key: key,
          UpdateExpression: 'SET #name = :name',
          ExpressionAttributeNames: { '#name': 'name' },
          ExpressionAttributeValues: { ':name': { S: name } },
          ReturnValues: 'UPDATED_OLD',
        }),
      );
    const before = await writableItems(updateList);
    const { Attributes } = await rename('Renamed behind the API');
    try {
      expect(before.length).toBeGreaterThan(0);
      expect(await writableItems(updateList)).not.toEqual(before);
    } finally {
      await rename(Attributes!['name']!.S!);
    }
    expect(await writableItems(updateList)).toEqual(before);
  });

  it.each(operations)(
    `$routeId ($method $path): ${(RUNS * BATCH).toLocaleString('en')} generated requests`,
    async (operation) => {
      const writes = isWrite(operation);
      const statuses = new Map<number, number>();
      let sent = 0;
      let rejectedBatchesCompared = 0;
      const result = await fc.check(
        fc.asyncProperty(
          // Half the batches of a write route are hostile only: those are mostly rejected whole.
          fc.boolean().chain((hostileOnly) =>
            fc
              .array(requestsFor(operation, context, writes && hostileOnly), {
                minLength: BATCH,
                maxLength: BATCH,
              })
              .map((batch) => ({ hostileOnly, batch })),
          ),
          async ({ hostileOnly, batch }) => {
            // A list deleted by an earlier batch is cleaned up in the background (every second on the local
            // stage): finish that first, so the items compared change only by this batch.
            if (writes) await cleanUpDeletedLists();
            // The hostile-only batches of a write route are the ones rejected whole: their items compared.
            const compared = writes && hostileOnly;
            const before = compared ? await writableItems(operation) : null;
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
              expect(await writableItems(operation)).toEqual(before);
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
