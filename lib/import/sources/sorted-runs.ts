/**
 * Records re-ordered by a key without holding them all (contract §11.5.10): they are sorted in runs of
 * bounded size, each run written to a temporary file on local disk, and the runs merged back in key
 * order. Fewer records than one run never touch the disk. The temporary files go when the merge ends.
 */
import { createReadStream, createWriteStream, type WriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import { byCodePoint } from '../../order';

export interface SortedRunsOptions {
  /** Records per run (the memory held is about this many records). */
  runSize?: number;
  /** Where the temporary folder is made (default: the system's temporary folder). */
  dir?: string;
}

/** A key (no tab, no line break) and a JSON-serialisable value. */
export class SortedRuns<T> {
  /** Held as JSON text: one string a record weighs far less than its object graph. */
  private buffer: [string, string][] = [];
  private runs: string[] = [];
  private folder: string | undefined;
  private readonly runSize: number;

  constructor(private readonly options: SortedRunsOptions = {}) {
    this.runSize = options.runSize ?? 25_000;
  }

  async add(key: string, value: T): Promise<void> {
    this.buffer.push([key, JSON.stringify(value)]);
    if (this.buffer.length >= this.runSize) await this.spill();
  }

  /** Every record added, in key order (equal keys in the order they were added); then the runs are gone. */
  async *sorted(): AsyncGenerator<[string, T]> {
    try {
      const inMemory = sortRun(this.buffer);
      this.buffer = [];
      if (this.runs.length === 0) {
        for (const [key, json] of inMemory) yield [key, JSON.parse(json) as T];
        return;
      }
      if (inMemory.length > 0) await this.write(inMemory);
      yield* mergeRuns<T>(this.runs);
    } finally {
      await this.discard();
    }
  }

  async discard(): Promise<void> {
    this.buffer = [];
    if (this.folder) await rm(this.folder, { recursive: true, force: true });
    this.folder = undefined;
    this.runs = [];
  }

  private async spill(): Promise<void> {
    const run = sortRun(this.buffer);
    this.buffer = [];
    await this.write(run);
  }

  private async write(run: [string, string][]): Promise<void> {
    this.folder ??= await mkdtemp(join(this.options.dir ?? tmpdir(), 'registry-runs-'));
    const path = join(this.folder, `run-${this.runs.length}`);
    const out = createWriteStream(path);
    let chunk = '';
    for (const [key, json] of run) {
      chunk += `${key}\t${json}\n`;
      if (chunk.length > 1 << 16) {
        await writeChunk(out, chunk);
        chunk = '';
      }
    }
    await writeChunk(out, chunk);
    out.end();
    await once(out, 'close');
    this.runs.push(path);
  }
}

async function writeChunk(out: WriteStream, chunk: string): Promise<void> {
  if (!out.write(chunk)) await once(out, 'drain');
}

function sortRun(run: [string, string][]): [string, string][] {
  // A stable sort: equal keys keep the order in which they were added.
  return run.sort((a, b) => byCodePoint(a[0], b[0]));
}

/** The runs' lines merged in key order; ties go to the earlier run, which holds the earlier records. */
async function* mergeRuns<T>(paths: string[]): AsyncGenerator<[string, T]> {
  const heads = paths.map((path) => linesOf(path));
  const current: ([string, string] | undefined)[] = await Promise.all(heads.map(nextRecord));
  for (;;) {
    let best = -1;
    for (let i = 0; i < current.length; i++) {
      const record = current[i];
      if (record && (best < 0 || byCodePoint(record[0], current[best]![0]) < 0)) best = i;
    }
    if (best < 0) return;
    const [key, json] = current[best]!;
    yield [key, JSON.parse(json) as T];
    current[best] = await nextRecord(heads[best]!);
  }
}

async function nextRecord(lines: AsyncIterator<string>): Promise<[string, string] | undefined> {
  const next = await lines.next();
  if (next.done) return undefined;
  const tab = next.value.indexOf('\t');
  return [next.value.slice(0, tab), next.value.slice(tab + 1)];
}

/**
 * A file's lines, read in chunks of 16 KiB (a run's line holds no raw line break: JSON escapes them): a
 * merge reads many runs at once, each chunk alive until its lines are taken.
 */
async function* linesOf(path: string): AsyncGenerator<string> {
  let rest = '';
  for await (const chunk of createReadStream(path, { encoding: 'utf8', highWaterMark: 1 << 14 })) {
    const lines = (rest + (chunk as string)).split('\n');
    rest = lines.pop() ?? '';
    yield* lines;
  }
  if (rest) yield rest;
}

/** Records kept on local disk in the order they are added (JSON lines), read back once in that order. */
export class Spool<T> {
  private chunk = '';
  private out: WriteStream | undefined;
  private path: string | undefined;
  private folder: string | undefined;

  constructor(private readonly options: Pick<SortedRunsOptions, 'dir'> = {}) {}

  async add(value: T): Promise<void> {
    this.chunk += `${JSON.stringify(value)}\n`;
    if (this.chunk.length > 1 << 16) {
      await this.opened();
      await writeChunk(this.out!, this.chunk);
      this.chunk = '';
    }
  }

  /** Every record added, in order; then the file is gone. */
  async *read(): AsyncGenerator<T> {
    try {
      if (this.out) {
        await writeChunk(this.out, this.chunk);
        this.out.end();
        await once(this.out, 'close');
        for await (const line of linesOf(this.path!)) yield JSON.parse(line) as T;
      } else {
        for (const line of this.chunk.split('\n')) if (line) yield JSON.parse(line) as T;
      }
    } finally {
      await this.discard();
    }
  }

  async discard(): Promise<void> {
    this.chunk = '';
    if (this.out && !this.out.closed) {
      this.out.end();
      await once(this.out, 'close');
    }
    this.out = undefined;
    if (this.folder) await rm(this.folder, { recursive: true, force: true });
    this.folder = undefined;
  }

  private async opened(): Promise<void> {
    if (this.out) return;
    this.folder = await mkdtemp(join(this.options.dir ?? tmpdir(), 'registry-spool-'));
    this.path = join(this.folder, 'spool');
    this.out = createWriteStream(this.path);
  }
}
