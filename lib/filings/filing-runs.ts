/**
 * A run's filings grouped by company on local disk (contract §11.5.10), as the filing import needs them
 * (a company's filings come in any order in the files).
 *
 * Sorted runs, as lib/import/sources/sorted-runs.ts makes them, in a format of their own: the grouping
 * writes and reads back every filing once, and a filing is mostly numbers (its figures, in the
 * mapping's order, lib/filings/mapping.ts), which JSON would write as decimal text and parse back one
 * digit at a time. Here a filing is its texts (the company key, file, dates, rank: one JSON array) and
 * its numbers (line, health indicator, dropped figures, then the figures; NaN for null) in a
 * `Float64Array`, copied as bytes. A run is written as frames of `FRAME_FILINGS` filings, each its
 * texts as one JSON array of arrays, then its numbers; a frame is read back by one read, one parse of
 * its texts, and a view of its numbers. The merge takes the filings of the frames in memory
 * synchronously and waits only when a run's frame is used up.
 *
 * Memory: the filings held before a run is sorted onto disk (`runSize`: their texts as strings, their
 * numbers in one array allocated once), and one frame per run while they are merged.
 */
import { mkdtemp, open, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { companyKey } from '../companies/identifiers';
import { byCodePoint } from '../order';
import { FILING_RUN_SIZE, type Filing, type FilingFormat } from './filing';
import { MAPPING, type Figures, type Group } from './mapping';

/** A filing's texts: its company key first (what the runs are sorted by). */
type Texts = [
  key: string,
  file: string,
  format: FilingFormat,
  country: Filing['country'],
  companyNumber: string,
  endDate: string,
  startDate: string | null,
  dateReceived: string | null,
  rank: string,
];

/** A filing's numbers: `line`, `healthIndicator`, `dropped`, then its figures in the mapping's order. */
const FIXED = 3;
const WIDTH = FIXED + MAPPING.length;
const BYTES = WIDTH * Float64Array.BYTES_PER_ELEMENT;

const GROUPS = MAPPING.map((row) => row.group);
const FIELDS = MAPPING.map((row) => row.field);

/** The filing's texts, as JSON, and its numbers written into `numbers` from `at`. */
function packFiling(f: Filing, key: string, numbers: Float64Array, at: number): string {
  const texts: Texts = [
    key,
    f.source.file,
    f.format,
    f.country,
    f.companyNumber,
    f.endDate,
    f.startDate,
    f.dateReceived,
    f.rank,
  ];
  numbers[at] = f.source.line;
  numbers[at + 1] = f.healthIndicator ?? NaN;
  numbers[at + 2] = f.dropped;
  const figures = f.figures as Record<Group, Record<string, number | null>>;
  for (let i = 0; i < MAPPING.length; i++) numbers[at + FIXED + i] = figures[GROUPS[i]!][FIELDS[i]!] ?? NaN;
  return JSON.stringify(texts);
}

const orNull = (n: number) => (Number.isNaN(n) ? null : n);

/** The filing `packFiling` packed, its figures' keys in the mapping's order (as `figuresOf` makes them). */
function unpackFiling(t: Texts, numbers: Float64Array, at: number): Filing {
  const groups: Record<Group, Record<string, number | null>> = {
    profitability: {},
    liquidity: {},
    solvency: {},
    people: {},
  };
  for (let i = 0; i < MAPPING.length; i++) groups[GROUPS[i]!][FIELDS[i]!] = orNull(numbers[at + FIXED + i]!);
  return {
    source: { file: t[1], line: numbers[at]! },
    format: t[2],
    country: t[3],
    companyNumber: t[4],
    endDate: t[5],
    startDate: t[6],
    dateReceived: t[7],
    rank: t[8],
    healthIndicator: orNull(numbers[at + 1]!),
    figures: groups as Figures,
    dropped: numbers[at + 2]!,
  };
}

/** Filings a frame of a run holds: one read and one parse each when the runs are merged. */
export const FRAME_FILINGS = 256;

/** A frame on disk: where it starts, its texts' bytes, its filings. */
interface Frame {
  offset: number;
  textBytes: number;
  count: number;
}

/** A run on disk: its frames in order. */
interface Run {
  path: string;
  frames: Frame[];
}

/** Filings added in any order, given back grouped by company (in the order added within a company). */
export class FilingRuns {
  /** The held filings' keys and texts (JSON), one string each: few objects for the collector to move. */
  private keys: string[] = [];
  private texts: string[] = [];
  /** The held filings' numbers, `WIDTH` a filing; allocated once, for `runSize` filings. */
  private numbers: Float64Array | undefined;
  private runs: Run[] = [];
  private folder: string | undefined;

  constructor(
    private readonly runSize = FILING_RUN_SIZE,
    private readonly frameSize = FRAME_FILINGS,
  ) {}

  async add(filing: Filing): Promise<void> {
    this.numbers ??= new Float64Array(this.runSize * WIDTH);
    const key = companyKey(filing);
    this.texts.push(packFiling(filing, key, this.numbers, this.keys.length * WIDTH));
    this.keys.push(key);
    if (this.keys.length >= this.runSize) await this.write();
  }

  /** Every filing added, by company key (equal keys in the order added); then the runs are gone. */
  async *sorted(): AsyncGenerator<[string, Filing]> {
    try {
      if (this.runs.length === 0) {
        const numbers = this.numbers;
        for (const i of this.order()) {
          const texts = JSON.parse(this.texts[i]!) as Texts;
          yield [texts[0], unpackFiling(texts, numbers!, i * WIDTH)];
        }
        return;
      }
      if (this.keys.length > 0) await this.write();
      const readers = this.runs.map((run) => new RunReader(run));
      try {
        await Promise.all(readers.map((reader) => reader.fill()));
        for (;;) {
          let best: RunReader | undefined;
          // Ties go to the earlier run, which holds the earlier filings.
          for (const reader of readers)
            if (reader.head && (!best || byCodePoint(reader.head[0], best.head![0]) < 0)) best = reader;
          if (!best) return;
          const filing = best.take();
          yield [filing.key, filing.filing];
          if (!best.head) await best.fill();
        }
      } finally {
        await Promise.all(readers.map((reader) => reader.close()));
      }
    } finally {
      await this.discard();
    }
  }

  async discard(): Promise<void> {
    this.keys = [];
    this.texts = [];
    this.numbers = undefined;
    if (this.folder) await rm(this.folder, { recursive: true, force: true });
    this.folder = undefined;
    this.runs = [];
  }

  /** The held filings' positions by company key; a stable sort keeps a company's in the order added. */
  private order(): number[] {
    const keys = this.keys;
    return Array.from(keys, (_, i) => i).sort((a, b) => byCodePoint(keys[a]!, keys[b]!));
  }

  /** The held filings sorted onto disk as a run of frames of `frameSize` filings; then none is held. */
  private async write(): Promise<void> {
    const order = this.order();
    const numbers = this.numbers!;
    this.folder ??= await mkdtemp(join(tmpdir(), 'filing-runs-'));
    const path = join(this.folder, `run-${this.runs.length}`);
    const frames: Frame[] = [];
    let offset = 0;
    const file = await open(path, 'w');
    try {
      for (let start = 0; start < order.length; start += this.frameSize) {
        const positions = order.slice(start, start + this.frameSize);
        const texts = Buffer.from(`[${positions.map((i) => this.texts[i]).join(',')}]`);
        // The numbers start on a multiple of 8 bytes, so that they are read back as a view.
        const padding = Buffer.alloc((8 - (texts.length % 8)) % 8);
        const frameNumbers = new Float64Array(positions.length * WIDTH);
        positions.forEach((i, n) =>
          frameNumbers.set(numbers.subarray(i * WIDTH, (i + 1) * WIDTH), n * WIDTH),
        );
        const bytes = Buffer.from(frameNumbers.buffer);
        await file.writev([texts, padding, bytes]);
        frames.push({ offset, textBytes: texts.length, count: positions.length });
        offset += texts.length + padding.length + bytes.length;
      }
    } finally {
      await file.close();
    }
    this.runs.push({ path, frames });
    this.keys = [];
    this.texts = [];
  }
}

/** A run's filings a frame at a time: `head` is the next one's texts, undefined when the frame is used up. */
class RunReader {
  head: Texts | undefined;
  private texts: Texts[] = [];
  private numbers = new Float64Array(0);
  private at = 0;
  private next = 0;
  private file: Awaited<ReturnType<typeof open>> | undefined;

  constructor(private readonly run: Run) {}

  take(): { key: string; filing: Filing } {
    const texts = this.head!;
    const filing = unpackFiling(texts, this.numbers, this.at * WIDTH);
    this.head = this.texts[++this.at];
    return { key: texts[0], filing };
  }

  /** The run's next frame, if any is left. */
  async fill(): Promise<void> {
    const frame = this.run.frames[this.next];
    if (!frame) {
      this.head = undefined;
      return;
    }
    this.file ??= await open(this.run.path, 'r');
    const numbersAt = Math.ceil(frame.textBytes / 8) * 8;
    const length = numbersAt + frame.count * BYTES;
    // A buffer of its own (offset 0 in its memory), so that its numbers are an aligned view.
    const { buffer, bytesRead } = await this.file.read(
      Buffer.allocUnsafeSlow(length),
      0,
      length,
      frame.offset,
    );
    if (bytesRead < length) throw new Error(`${this.run.path}: ends within a frame`);
    this.next++;
    this.texts = JSON.parse(buffer.toString('utf8', 0, frame.textBytes)) as Texts[];
    this.numbers = new Float64Array(buffer.buffer, buffer.byteOffset + numbersAt, frame.count * WIDTH);
    this.at = 0;
    this.head = this.texts[0];
  }

  async close(): Promise<void> {
    await this.file?.close();
    this.file = undefined;
  }
}
