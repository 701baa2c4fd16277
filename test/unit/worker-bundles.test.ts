/**
 * The webhook workers' bundles (contract §12; issue budget: the delivery function ≤ 250 KB, the same
 * budget as every route's, which `npm run bench` judges): built as the stack builds them
 * (infra/bundling.ts through the bench's build options). A size, not a timing: it holds on any machine.
 * The fan-out is held to it too: it runs on every announced import batch.
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { build } from 'esbuild';
import { workers } from '../../lib/routes';
import { buildOptions } from '../bench/bundles';
import { BUDGET } from '../bench/figures';
import { kb } from '../bench/statistics';

const ROOT = path.join(__dirname, '..', '..');
const dir = mkdtempSync(path.join(os.tmpdir(), 'worker-bundles-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
jest.setTimeout(60_000);

it.each(['deliverWebhooks', 'fanOutWebhookEvents'] as const)(
  `bundles %s within ${BUDGET.bundleKb} KB`,
  async (workerId) => {
    const outfile = path.join(dir, `${workerId}.js`);
    await build({ ...buildOptions(outfile), entryPoints: [path.join(ROOT, workers[workerId].entry)] });
    expect(kb(statSync(outfile).size)).toBeLessThanOrEqual(BUDGET.bundleKb);
  },
);
