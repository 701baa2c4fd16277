/**
 * Every function's bundle within the 250 KB budget (`npm run bench` prints and judges the same sizes):
 * each route and the authorizer (but those that hand out a generated document: the OpenAPI document,
 * the reference page), and the webhook workers (contract §12's delivery function; the fan-out runs on
 * every announced import batch). Built as the stack builds them (infra/bundling.ts through the bench's
 * build options). A size, not a timing: it holds on any machine, and a change that crosses it fails
 * here rather than in a bench run nobody reads.
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { build, stop } from 'esbuild';
import { workers } from '../../lib/routes';
import { buildFunctions, buildOptions } from '../bench/bundles';
import { BENCH_CASES, type BenchCase, type FunctionId } from '../bench/cases';
import { BUDGET } from '../bench/figures';
import { kb } from '../bench/statistics';

const ROOT = path.join(__dirname, '..', '..');
const dir = mkdtempSync(path.join(os.tmpdir(), 'bundles-'));
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  // esbuild's service process, which `build` started.
  await stop();
});
jest.setTimeout(180_000);

it(`bundles every route and the authorizer within ${BUDGET.bundleKb} KB`, async () => {
  const built = await buildFunctions(dir);
  const over = (Object.keys(built) as FunctionId[])
    .filter((id) => !(BENCH_CASES[id] as BenchCase).document)
    .map((id) => ({ id, kb: Math.round(kb(built[id].bytes) * 100) / 100 }))
    .filter((b) => b.kb > BUDGET.bundleKb);
  expect(over).toEqual([]);
});

it.each(['deliverWebhooks', 'fanOutWebhookEvents'] as const)(
  `bundles %s within ${BUDGET.bundleKb} KB`,
  async (workerId) => {
    const outfile = path.join(dir, `${workerId}.js`);
    await build({ ...buildOptions(outfile), entryPoints: [path.join(ROOT, workers[workerId].entry)] });
    expect(kb(statSync(outfile).size)).toBeLessThanOrEqual(BUDGET.bundleKb);
  },
);
