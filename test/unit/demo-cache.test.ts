/**
 * The demo data kept between `npm start`s (infra/local/demo-cache.ts): restored only for the same
 * code and table, saved whole, and never where no memory-backed directory exists.
 */
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openDemoCache } from '../../infra/local/demo-cache';

let root: string;
let memoryDir: string;

beforeEach(() => {
  root = mkdtempSync(path.join(os.tmpdir(), 'demo-cache-root-'));
  memoryDir = mkdtempSync(path.join(os.tmpdir(), 'demo-cache-memory-'));
  mkdirSync(path.join(root, 'lib'), { recursive: true });
  writeFileSync(path.join(root, 'lib', 'derive.ts'), 'export const rule = 1;\n');
});

afterEach(() => {
  rmSync(root, { recursive: true, force: true });
  rmSync(memoryDir, { recursive: true, force: true });
});

/** A start that imports (a miss) and keeps what it wrote. */
function firstStart(tableName = 'company-data-local') {
  const cache = openDemoCache(tableName, { root, memoryDir })!;
  expect(cache.hit).toBe(false);
  writeFileSync(path.join(cache.workDir, 'local_local.db'), 'the imported demo data');
  cache.save();
  return cache;
}

test('a later start of the same code gets a copy of the kept file, in a directory of its own', () => {
  const first = firstStart();
  const second = openDemoCache('company-data-local', { root, memoryDir })!;
  expect(second.hit).toBe(true);
  expect(second.workDir).not.toBe(first.workDir);
  expect(readFileSync(path.join(second.workDir, 'local_local.db'), 'utf8')).toBe('the imported demo data');
  expect(second.file).toMatch(/^node_modules\/\.cache\/company-data-api\/demo-[0-9a-f]{16}$/);
});

test('a change to the code, or another table, imports again; only the newest file is kept', () => {
  const first = firstStart();
  expect(openDemoCache('other-table', { root, memoryDir })!.hit).toBe(false);
  writeFileSync(path.join(root, 'lib', 'derive.ts'), 'export const rule = 2;\n');
  const changed = openDemoCache('company-data-local', { root, memoryDir })!;
  expect(changed.hit).toBe(false);
  writeFileSync(path.join(changed.workDir, 'local_local.db'), 'data of the new rule');
  changed.save();
  const kept = readdirSync(path.join(root, 'node_modules', '.cache', 'company-data-api'));
  expect(kept).toEqual([path.basename(changed.file)]);
  expect(existsSync(path.join(root, first.file))).toBe(false);
});

test('without a memory-backed directory there is no cache (every start imports)', () => {
  expect(
    openDemoCache('company-data-local', { root, memoryDir: path.join(memoryDir, 'missing') }),
  ).toBeUndefined();
});
