/**
 * The demo data of `npm start`, kept between starts. Importing the 3,000 demo companies twice (their
 * older snapshot, then the current data) with every derivation takes most of a start; its result
 * depends only on the code and the demo generator. So the first start runs DynamoDB Local on a
 * database file in memory-backed storage (/dev/shm), imports, and keeps a copy of that file in
 * node_modules/.cache/company-data-api/, named by a hash of every source file that could change it
 * (lib/, infra/local/, test/fixtures/, package-lock.json) and the table name. A later start of the same
 * code copies the file and serves at once; any change to that code makes a new one.
 *
 * DynamoDB Local writes its file with SQLite, which syncs every write to disk: on a real disk the
 * import would take minutes. Where no memory-backed directory exists (macOS, Windows), there is no
 * cache: the data is imported into DynamoDB Local's memory at every start, as `--fresh` does.
 */
import { createHash } from 'node:crypto';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
} from 'node:fs';
import path from 'node:path';

/** What the demo data is made of: the code that generates, imports and derives it. */
const SOURCES = ['lib', 'infra/local', 'test/fixtures', 'package-lock.json'];

export interface DemoCacheOptions {
  /** The project (its sources are hashed; the cache is in its node_modules/.cache). */
  root?: string;
  /** A memory-backed directory for DynamoDB Local's file. */
  memoryDir?: string;
}

export interface DemoCache {
  /** Where DynamoDB Local keeps its database file for this start (removed when the process exits). */
  workDir: string;
  /** True when the demo data was restored: the table is there, nothing to import. */
  hit: boolean;
  /** The cached file, relative to the project (for messages). */
  file: string;
  /** Keeps a copy of the database file; DynamoDB Local must be stopped (its file closed). */
  save(): void;
}

/** The cache for this start, or undefined where no memory-backed directory exists. */
export function openDemoCache(
  tableName: string,
  { root = path.resolve(__dirname, '../..'), memoryDir = '/dev/shm' }: DemoCacheOptions = {},
): DemoCache | undefined {
  if (!isWritableDirectory(memoryDir)) return undefined;
  const cacheDir = path.join(root, 'node_modules', '.cache', 'company-data-api');
  const cached = path.join(cacheDir, `demo-${sourceHash(root, tableName)}`);
  const workDir = mkdtempSync(path.join(memoryDir, 'company-data-local-'));
  process.once('exit', () => rmSync(workDir, { recursive: true, force: true }));
  const hit = existsSync(cached);
  if (hit)
    for (const name of readdirSync(cached)) copyFileSync(path.join(cached, name), path.join(workDir, name));
  return {
    workDir,
    hit,
    file: path.relative(root, cached),
    save() {
      // Written beside and renamed: a start reading the cache never sees half a copy.
      mkdirSync(cacheDir, { recursive: true });
      const partial = mkdtempSync(path.join(cacheDir, 'partial-'));
      for (const name of readdirSync(workDir))
        copyFileSync(path.join(workDir, name), path.join(partial, name));
      rmSync(cached, { recursive: true, force: true });
      renameSync(partial, cached);
      // Only the newest is kept: an older one belongs to code that no longer exists here.
      for (const name of readdirSync(cacheDir))
        if (name.startsWith('demo-') && name !== path.basename(cached))
          rmSync(path.join(cacheDir, name), { recursive: true, force: true });
    },
  };
}

function sourceHash(root: string, tableName: string): string {
  const hash = createHash('sha256').update(`table ${tableName}\n`);
  const visit = (relative: string) => {
    const full = path.join(root, relative);
    if (statSync(full).isDirectory()) {
      for (const name of readdirSync(full).sort()) visit(path.join(relative, name));
    } else {
      hash.update(`${relative}\n`).update(readFileSync(full));
    }
  };
  for (const source of SOURCES) if (existsSync(path.join(root, source))) visit(source);
  return hash.digest('hex').slice(0, 16);
}

function isWritableDirectory(dir: string): boolean {
  try {
    rmSync(mkdtempSync(path.join(dir, 'probe-')), { recursive: true });
    return true;
  } catch {
    return false;
  }
}
