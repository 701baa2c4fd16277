/**
 * Records re-ordered by a key without holding them all (contract §11.5.10): they are sorted in runs of
 * bounded size, each run written to a temporary file on local disk, and the runs merged back in key
 * order. Fewer records than one run never touch the disk. The temporary files go when the merge ends.
 *
 * A merge reads its runs at once, each through a buffer of its own, so their number is bounded too:
 * once `fanIn` runs of one size follow each other, they are merged into one run (then runs of that
 * size in turn), so that the final merge reads fewer than `fanIn` runs of each size and every record
 * is rewritten only a few times however large the input.
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
  /**
   * Characters of records (as JSON) per run, besides `runSize`: a bound on the memory a run holds when
   * records are large. Held records outlive the garbage collector's young generation, and the old one
   * grows with what it has to hold.
   */
  runChars?: number;
  /** Runs merged at once at most (default 64). */
  fanIn?: number;
  /** Where the temporary folder is made (default: the system's temporary folder). */
  dir?: string;
}

/** A key (no tab, no line break) and a JSON-serialisable value. */
export class SortedRuns<T> {
  /** Held as JSON text: one string a record weighs far less than its object graph. */
  private buffer: [string, string][] = [];
  /** Characters of JSON in `buffer`. */
  private chars = 0;
  /** The runs on disk in the order of their records, each with its level: 0 when sorted in memory, L + 1 when merged from runs of level L. */
  private runs: Array<{ path: string; level: number }> = [];
  private written = 0;
  private folder: string | undefined;
  private readonly runSize: number;
  private readonly runChars: number;
  private readonly fanIn: number;

  constructor(private readonly options: SortedRunsOptions = {}) {
    this.runSize = options.runSize ?? 25_000;
    this.runChars = options.runChars ?? Infinity;
    this.fanIn = Math.max(2, options.fanIn ?? 64);
  }

  async add(key: string, value: T): Promise<void> {
    const json = JSON.stringify(value);
    this.buffer.push([key, json]);
    this.chars += json.length;
    if (this.buffer.length >= this.runSize || this.chars >= this.runChars) await this.spill();
  }

  /** Adds a record for each key, all with one value (its JSON made once): an await only when a run goes to disk. */
  async addKeys(keys: Iterable<string>, value: T): Promise<void> {
    const json = JSON.stringify(value);
    for (const key of keys) {
      this.buffer.push([key, json]);
      this.chars += json.length;
      if (this.buffer.length >= this.runSize || this.chars >= this.runChars) await this.spill();
    }
  }

  /** Every record added, in key order (equal keys in the order they were added); then the runs are gone. */
  async *sorted(): AsyncGenerator<[string, T]> {
    for await (const [key, json] of this.sortedTexts()) yield [key, JSON.parse(json) as T];
  }

  /** `sorted`'s records with each value as its JSON text, not parsed (for a reader that only passes it on). */
  async *sortedTexts(): AsyncGenerator<[string, string]> {
    try {
      const inMemory = sortRun(this.buffer);
      this.buffer = [];
      this.chars = 0;
      if (this.runs.length === 0) {
        for (const record of inMemory) yield record;
        return;
      }
      if (inMemory.length > 0) await this.write(inMemory);
      yield* mergeRuns(this.runs.map((run) => run.path));
    } finally {
      await this.discard();
    }
  }

  async discard(): Promise<void> {
    this.buffer = [];
    this.chars = 0;
    if (this.folder) await rm(this.folder, { recursive: true, force: true });
    this.folder = undefined;
    this.runs = [];
  }

  private async spill(): Promise<void> {
    const run = sortRun(this.buffer);
    this.buffer = [];
    this.chars = 0;
    await this.write(run);
    // The last `fanIn` runs of one level become one run of the next: the runs stay in the order
    // their records were added, so equal keys still come out in that order.
    for (;;) {
      const tail = this.runs.slice(-this.fanIn);
      const level = tail[0]!.level;
      if (tail.length < this.fanIn || tail.some((r) => r.level !== level)) return;
      const merged = await this.write(mergeRuns(tail.map((r) => r.path)), level + 1);
      await Promise.all(tail.map((r) => rm(r.path, { force: true })));
      this.runs.splice(this.runs.length - this.fanIn, this.fanIn, merged);
    }
  }

  /** Writes a sorted run to a new file, which joins `runs`. */
  private async write(
    run: Iterable<[string, string]> | AsyncIterable<[string, string]>,
    level = 0,
  ): Promise<{ path: string; level: number }> {
    this.folder ??= await mkdtemp(join(this.options.dir ?? tmpdir(), 'registry-runs-'));
    const path = join(this.folder, `run-${this.written++}`);
    const out = createWriteStream(path);
    let chunk = '';
    for await (const [key, json] of run) {
      chunk += `${key}\t${json}\n`;
      if (chunk.length > 1 << 16) {
        await writeChunk(out, chunk);
        chunk = '';
      }
    }
    await writeChunk(out, chunk);
    out.end();
    await once(out, 'close');
    const written = { path, level };
    if (level === 0) this.runs.push(written);
    return written;
  }
}

async function writeChunk(out: WriteStream, chunk: string): Promise<void> {
  if (!out.write(chunk)) await once(out, 'drain');
}

function sortRun(run: [string, string][]): [string, string][] {
  // A stable sort: equal keys keep the order in which they were added.
  return run.sort((a, b) => byCodePoint(a[0], b[0]));
}

/** The runs' records (key and JSON) merged in key order; ties go to the earlier run, which holds the earlier records. */
async function* mergeRuns(paths: string[]): AsyncGenerator<[string, string]> {
  const heads = paths.map((path) => new RunReader(path, 1 << 14));
  const current: ([string, string] | undefined)[] = await Promise.all(heads.map((head) => head.next()));
  for (;;) {
    let best = -1;
    for (let i = 0; i < current.length; i++) {
      const record = current[i];
      if (record && (best < 0 || byCodePoint(record[0], current[best]![0]) < 0)) best = i;
    }
    if (best < 0) return;
    yield current[best]!;
    current[best] = await heads[best]!.next();
  }
}

/** A run's records in turn: its lines are read a chunk at a time, and a record waits only when a chunk runs out. */
class RunReader {
  private lines: string[] = [];
  private at = 0;
  private readonly chunks: AsyncIterator<string[]>;

  constructor(path: string, chunkSize: number) {
    this.chunks = linesOf(path, chunkSize)[Symbol.asyncIterator]();
  }

  async next(): Promise<[string, string] | undefined> {
    while (this.at >= this.lines.length) {
      const next = await this.chunks.next();
      if (next.done) return undefined;
      this.lines = next.value;
      this.at = 0;
    }
    const line = this.lines[this.at++]!;
    const tab = line.indexOf('\t');
    return [line.slice(0, tab), line.slice(tab + 1)];
  }
}

/**
 * A file's lines, a chunk of `chunkSize` bytes at a time (a run's or a spool's line holds no raw line
 * break: JSON escapes them): a merge reads many runs at once with small chunks, each alive until its
 * lines are taken; a spool, read alone, takes larger ones.
 */
async function* linesOf(path: string, chunkSize: number): AsyncGenerator<string[]> {
  let rest = '';
  for await (const chunk of createReadStream(path, { encoding: 'utf8', highWaterMark: chunkSize })) {
    const lines = (rest + (chunk as string)).split('\n');
    rest = lines.pop() ?? '';
    if (lines.length > 0) yield lines;
  }
  if (rest) yield [rest];
}

/** Records kept on local disk in the order they are added (JSON lines), read back once in that order. */
export class Spool<T> {
  private chunk = '';
  private out: WriteStream | undefined;
  private path: string | undefined;
  private folder: string | undefined;

  constructor(private readonly options: Pick<SortedRunsOptions, 'dir'> = {}) {}

  /** Adds a record: a promise (to await before the next) only when a chunk goes to disk, else nothing. */
  add(value: T): Promise<void> | undefined {
    return this.addText(JSON.stringify(value));
  }

  /** Adds a record as text of the caller's own (no line break), read back by `texts`. */
  addText(text: string): Promise<void> | undefined {
    this.chunk += `${text}\n`;
    if (this.chunk.length <= 1 << 16) return undefined;
    const chunk = this.chunk;
    this.chunk = '';
    return this.opened().then(() => writeChunk(this.out!, chunk));
  }

  /** Every record added, in order; then the file is gone. */
  async *read(): AsyncGenerator<T> {
    for await (const lines of this.lines()) for (const line of lines) yield JSON.parse(line) as T;
  }

  /** Every record added, as its text (`addText`, or the JSON of `add`), in order; then the file is gone. */
  async *texts(): AsyncGenerator<string> {
    for await (const lines of this.lines()) for (const line of lines) yield line;
  }

  /** The records' lines, a chunk at a time (one await a chunk, not a record). */
  private async *lines(): AsyncGenerator<string[]> {
    try {
      if (this.out) {
        await writeChunk(this.out, this.chunk);
        this.out.end();
        await once(this.out, 'close');
        yield* linesOf(this.path!, 1 << 16);
      } else yield this.chunk.split('\n').filter((line) => line !== '');
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
