/**
 * A run's filings grouped by company on local disk (contract §11.5.10), as the filing import needs them
 * (a company's filings come in any order in the files). A filing is held as one flat array, its figures
 * in the mapping's order (lib/filings/mapping.ts), not as its object: the figures' names would be most
 * of what is written.
 *
 * Sorted runs, as lib/import/sources/sorted-runs.ts makes them, but read back a frame at a time: the
 * grouping writes and reads back every filing once, and a filing is small (about 300 bytes), so what a
 * record costs there is its way through the reading (a line, a promise and an async generator step per
 * record), not its bytes. Here a run is written as frames of `FRAME_FILINGS` filings, each one JSON
 * array read back by one read and one parse at its known offset; the merge takes the filings of the
 * frames in memory synchronously and waits only when a run's frame is used up. Memory: the filings
 * held before a run is sorted onto disk (`runSize`), and one frame per run while they are merged.
 */
import { mkdtemp, open, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { companyKey } from '../companies/identifiers';
import { byCodePoint } from '../order';
import { FILING_RUN_SIZE, type Filing, type FilingFormat } from './filing';
import { MAPPING, type Figures, type Group } from './mapping';

type PackedFiling = [
  file: string,
  line: number,
  format: FilingFormat,
  country: Filing['country'],
  companyNumber: string,
  endDate: string,
  startDate: string | null,
  dateReceived: string | null,
  rank: string,
  healthIndicator: number | null,
  dropped: number,
  ...figures: Array<number | null>,
];

const FIXED = 11;

export function packFiling(f: Filing): PackedFiling {
  const figures = f.figures as Record<Group, Record<string, number | null>>;
  return [
    f.source.file,
    f.source.line,
    f.format,
    f.country,
    f.companyNumber,
    f.endDate,
    f.startDate,
    f.dateReceived,
    f.rank,
    f.healthIndicator,
    f.dropped,
    ...MAPPING.map((row) => figures[row.group][row.field] ?? null),
  ];
}

/** The filing `packFiling` packed, its figures' keys in the mapping's order (as `figuresOf` makes them). */
export function unpackFiling(p: PackedFiling): Filing {
  const groups: Record<Group, Record<string, number | null>> = {
    profitability: {},
    liquidity: {},
    solvency: {},
    people: {},
  };
  for (let i = 0; i < MAPPING.length; i++)
    groups[MAPPING[i]!.group][MAPPING[i]!.field] = (p[FIXED + i] as number | null) ?? null;
  const figures = groups as Figures;
  const [file, line, format, country, companyNumber, endDate, startDate, dateReceived, rank] = p;
  const [healthIndicator, dropped] = [p[9], p[10]];
  const dates = { endDate, startDate, dateReceived };
  return {
    source: { file, line },
    format,
    country,
    companyNumber,
    ...dates,
    rank,
    healthIndicator,
    figures,
    dropped,
  };
}

/** Filings a frame of a run holds: one read and one parse each when the runs are merged. */
export const FRAME_FILINGS = 256;

/** A run on disk: where each frame starts (and the file's end after the last). */
interface Run {
  path: string;
  offsets: number[];
}

type Keyed = [key: string, filing: PackedFiling];
/** A filing held before its run is sorted: its key and its packed array as JSON text. */
type Held = [key: string, json: string];

/** Filings added in any order, given back grouped by company (in the order added within a company). */
export class FilingRuns {
  /**
   * As JSON text, as SortedRuns holds its records: one string a filing, where its packed array would
   * be some thirty objects (each figure a boxed number) for the garbage collector to move while held.
   */
  private held: Held[] = [];
  private runs: Run[] = [];
  private folder: string | undefined;

  constructor(
    private readonly runSize = FILING_RUN_SIZE,
    private readonly frameSize = FRAME_FILINGS,
  ) {}

  async add(filing: Filing): Promise<void> {
    const key = companyKey(filing);
    this.held.push([key, JSON.stringify([key, packFiling(filing)])]);
    if (this.held.length >= this.runSize) await this.spill();
  }

  /** Every filing added, by company key (equal keys in the order added); then the runs are gone. */
  async *sorted(): AsyncGenerator<[string, Filing]> {
    try {
      const last = sortRun(this.held);
      this.held = [];
      if (this.runs.length === 0) {
        for (const [key, json] of last) yield [key, unpackFiling((JSON.parse(json) as Keyed)[1])];
        return;
      }
      if (last.length > 0) await this.write(last);
      const readers = this.runs.map((run) => new RunReader(run));
      try {
        await Promise.all(readers.map((reader) => reader.fill()));
        for (;;) {
          let best: RunReader | undefined;
          // Ties go to the earlier run, which holds the earlier filings.
          for (const reader of readers)
            if (reader.head && (!best || byCodePoint(reader.head[0], best.head![0]) < 0)) best = reader;
          if (!best) return;
          const [key, packed] = best.take();
          yield [key, unpackFiling(packed)];
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
    this.held = [];
    if (this.folder) await rm(this.folder, { recursive: true, force: true });
    this.folder = undefined;
    this.runs = [];
  }

  private async spill(): Promise<void> {
    const run = sortRun(this.held);
    this.held = [];
    await this.write(run);
  }

  /** The run written as frames of `frameSize` filings, each one JSON array. */
  private async write(run: Held[]): Promise<void> {
    this.folder ??= await mkdtemp(join(tmpdir(), 'filing-runs-'));
    const path = join(this.folder, `run-${this.runs.length}`);
    const offsets = [0];
    const file = await open(path, 'w');
    try {
      for (let start = 0; start < run.length; start += this.frameSize) {
        const held = run.slice(start, start + this.frameSize).map(([, json]) => json);
        const frame = Buffer.from(`[${held.join(',')}]`);
        await file.write(frame);
        offsets.push(offsets[offsets.length - 1]! + frame.length);
      }
    } finally {
      await file.close();
    }
    this.runs.push({ path, offsets });
  }
}

/** A stable sort by company key: a company's filings keep the order in which they were added. */
const sortRun = (run: Held[]) => run.sort((a, b) => byCodePoint(a[0], b[0]));

/** A run's filings a frame at a time: `head` is the next one, undefined when the frame is used up. */
class RunReader {
  head: Keyed | undefined;
  private frame: Keyed[] = [];
  private at = 0;
  private next = 0;
  private file: Awaited<ReturnType<typeof open>> | undefined;

  constructor(private readonly run: Run) {}

  take(): Keyed {
    const taken = this.head!;
    this.head = this.frame[++this.at];
    return taken;
  }

  /** The run's next frame, if any is left. */
  async fill(): Promise<void> {
    const { offsets, path } = this.run;
    if (this.next >= offsets.length - 1) {
      this.head = undefined;
      return;
    }
    this.file ??= await open(path, 'r');
    const length = offsets[this.next + 1]! - offsets[this.next]!;
    const { buffer } = await this.file.read(Buffer.allocUnsafe(length), 0, length, offsets[this.next]);
    this.next++;
    this.frame = JSON.parse(buffer.toString('utf8')) as Keyed[];
    this.at = 0;
    this.head = this.frame[0];
  }

  async close(): Promise<void> {
    await this.file?.close();
    this.file = undefined;
  }
}
