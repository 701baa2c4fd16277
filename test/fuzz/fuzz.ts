/**
 * `npm run fuzz -- --runs N [--base-url URL] [--token TOKEN] [--seed S] [--write] [--rate R]`: the fuzz tests'
 * generators, longer, against a running stage (default: the local one `npm start` serves, with its demo
 * tokens and companies). Each run sends 20 requests per route; every answer must be a status the
 * document lists, in the contract's shape, never a 5xx, without internals. Write routes are fuzzed only
 * with --write (they change data). Exit code 0 when every answer holds.
 *
 * It sends at most R requests a second (default 200), under the plan of the account it calls (§13: a
 * bulk plan takes 250; put the demo accounts on it with `npm run account -- plan`): over the plan, most
 * answers would be 429 and the routes behind the gate would go untested.
 */
import { parseArgs } from 'node:util';
import fc from 'fast-check';
import { DEMO_TOKENS } from '../../infra/local/demo';
import { generateDemoData } from '../fixtures/demo-data/companies';
import { contract } from '../support/openapi';
import { fuzzCheck, inFuzzOrder, isWrite, sendFuzzRequest } from './check';
import { fuzzCompany, legalEntityIdsOf, operationsOf, type FuzzContext } from './operations';
import { requestsFor } from './requests';

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '100' },
    'base-url': { type: 'string', default: `http://localhost:${process.env['PORT'] ?? 3000}` },
    token: { type: 'string', default: DEMO_TOKENS[0].token },
    seed: { type: 'string' },
    write: { type: 'boolean', default: false },
    rate: { type: 'string', default: '200' },
  },
});
const baseUrl = values['base-url']!.replace(/\/+$/, '');
const runs = Number(values.runs);
const seed = values.seed !== undefined ? Number(values.seed) : Date.now() % 2 ** 31;
const BATCH = 20;
/** The time a batch takes at the rate asked for: the next batch leaves no sooner. */
const batchMs = (1000 * BATCH) / Number(values.rate);
let nextBatchAt = 0;
async function paced(): Promise<void> {
  const wait = nextBatchAt - performance.now();
  if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
  nextBatchAt = Math.max(nextBatchAt, performance.now()) + batchMs;
}

const context: FuzzContext = {
  companies: generateDemoData({ companies: 30 }).map(fuzzCompany),
  listIds: ['1', '2', '3', '4', '5', '6', '7'],
  legalEntityIds: legalEntityIdsOf(generateDemoData({ companies: 30 })),
  token: values.token!,
  otherTokens: DEMO_TOKENS.slice(1).map((t) => t.token),
};

async function main(): Promise<void> {
  let failed = 0;
  let passed = 0;
  let total = 0;
  for (const operation of inFuzzOrder(operationsOf(contract))) {
    if (isWrite(operation) && !values.write) {
      console.log(`skipped ${operation.routeId} (a write route: add --write)`);
      continue;
    }
    let sent = 0;
    const statuses: Record<number, number> = {};
    const result = await fc.check(
      fc.asyncProperty(
        fc.array(requestsFor(operation, context), { minLength: BATCH, maxLength: BATCH }),
        async (batch) => {
          await paced();
          const answers = await Promise.all(batch.map((request) => sendFuzzRequest(baseUrl, request)));
          answers.forEach((answer, i) => {
            sent++;
            statuses[answer.status] = (statuses[answer.status] ?? 0) + 1;
            const problems = fuzzCheck(batch[i]!, answer);
            if (problems.length > 0) {
              const { mutation, method, url } = batch[i]!;
              throw new Error(`${problems.join('; ')}\n  after ${mutation}: ${method} ${url.slice(0, 300)}`);
            }
          });
        },
      ),
      { seed, numRuns: runs, endOnFailure: true },
    );
    total += sent;
    const summary = Object.entries(statuses)
      .map(([status, count]) => `${status}×${count}`)
      .join(' ');
    if (result.failed) {
      failed++;
      const error =
        result.errorInstance instanceof Error ? result.errorInstance.message : String(result.errorInstance);
      console.log(`FAILED  ${operation.routeId}: ${error.slice(0, 2000)}`);
    } else {
      passed++;
      console.log(`ok      ${operation.routeId}: ${sent} requests (${summary})`);
    }
  }
  console.log(`fuzz (seed ${seed}, ${total} requests): ${passed} passed, ${failed} failed`);
  process.exit(failed === 0 ? 0 : 1);
}

void main();
