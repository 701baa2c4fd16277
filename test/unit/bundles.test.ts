/**
 * Every function's bundle within the 250 KB budget (`npm run bench` prints and judges the same sizes):
 * each route and the authorizer (but those that hand out a generated document: the OpenAPI document,
 * the reference page), and the webhook workers (contract §12's delivery function; the fan-out runs on
 * every announced import batch). Built as the stack builds them (infra/bundling.ts through the bench's
 * build options). A size, not a timing: it holds on any machine, and a change that crosses it fails
 * here rather than in a bench run nobody reads.
 */
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { build, stop } from 'esbuild';
import { workers } from '../../lib/routes';
import { buildFunctions, buildOptions, type Subject } from '../bench/bundles';
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

let built: Record<FunctionId, Subject>;
beforeAll(async () => {
  built = await buildFunctions(dir);
});

it(`bundles every route and the authorizer within ${BUDGET.bundleKb} KB`, () => {
  const over = (Object.keys(built) as FunctionId[])
    .filter((id) => !(BENCH_CASES[id] as BenchCase).document)
    .map((id) => ({ id, kb: Math.round(kb(built[id].bytes) * 100) / 100 }))
    .filter((b) => b.kb > BUDGET.bundleKb);
  expect(over).toEqual([]);
});

// What only runs unbundled is left out of every function: the in-process storage access check (IAM
// enforces the declaration: infra/bundling.ts `define`), by its middleware's name and its error's text,
// and an import's write counters (lib/storage/write-counts.ts).
it('bundles neither the in-process storage access check nor the write counters', () => {
  const markers = ['declaredAccessCheck', 'is not declared', 'writeCounter'];
  const carried = (Object.keys(built) as FunctionId[]).flatMap((id) => {
    const code = readFileSync(built[id].file, 'utf8');
    return markers.filter((marker) => code.includes(marker)).map((marker) => `${id}: ${marker}`);
  });
  expect(carried).toEqual([]);
});

// Each key is an export of its own (lib/storage/keys.ts): a bundle carries only the keys its function uses.
it('bundles only the keys its function uses', () => {
  // The keys of a list's name and of an account's list count, which creating a list writes.
  const listKeys = ['LISTNAME#', 'LIST_COUNT'];
  const company = readFileSync(built.getCompany.file, 'utf8');
  const createList = readFileSync(built.createList.file, 'utf8');
  expect(listKeys.filter((key) => company.includes(key))).toEqual([]);
  expect(listKeys.filter((key) => createList.includes(key))).toEqual(listKeys);
});

it.each(['deliverWebhooks', 'fanOutWebhookEvents'] as const)(
  `bundles %s within ${BUDGET.bundleKb} KB`,
  async (workerId) => {
    const outfile = path.join(dir, `${workerId}.js`);
    await build({ ...buildOptions(outfile), entryPoints: [path.join(ROOT, workers[workerId].entry)] });
    expect(kb(statSync(outfile).size)).toBeLessThanOrEqual(BUDGET.bundleKb);
  },
);
