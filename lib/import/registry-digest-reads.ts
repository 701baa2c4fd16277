/**
 * How a re-import reads its registry digests (lib/import/registry-digest.ts): the blocks gathered
 * in a round, and — once the blocks come one after another by number, as a whole extract's do — the
 * blocks ahead of the converter, by number, before it reads them. A block whose digest is in when its
 * last unit is read is judged at once: a file imported again then holds about one block of units,
 * not rounds of them waiting for a round trip.
 */
import { batchGet } from '../storage/batch';
import { tableName } from '../storage/client';
import type { Key } from '../storage/keys';

/** Blocks whose digests are read in one request (BatchGetItem takes 100 keys). */
export const BLOCKS_PER_READ = 100;

/** Digest items being read, by `pk`. */
export interface DigestRead {
  stored: Promise<Map<string, Record<string, unknown>>>;
  /** They are in (or their read failed): judging a block of them waits for nothing. */
  settled: boolean;
}

/** What judging a block reads of its digest item (lib/import/registry-digest.ts `judgeBlock`). */
const JUDGED = ['pk', 'digest', 'run', 'others', 'withheld', 'vouchesWithheld', 'dropped', 'token'] as const;

/** Reads the digest items of `keys` (strongly consistent): one BatchGetItem a hundred. */
export function readDigests(keys: Key[]): DigestRead {
  const stored = batchGet(tableName(), keys, { consistent: true, projection: JUDGED }).then(
    (items) => new Map(items.map((item) => [item['pk'] as string, item])),
  );
  const read: DigestRead = { stored, settled: false };
  // Awaited when its blocks are judged; a failure is seen there, not as an unhandled rejection meanwhile.
  stored.then(
    () => (read.settled = true),
    () => (read.settled = true),
  );
  return read;
}

/** The digests of `BLOCKS_PER_READ` consecutive block numbers from `first`, read ahead. */
interface Ahead {
  country: string;
  first: number;
  /** Digits of its block numbers (leading zeros count). */
  width: number;
  read: DigestRead;
  /** Its blocks the converter came to: few means the numbers are sparse, and reading ahead wastes keys. */
  seen: number;
}

/** Block numbers read ahead only while they fit a double exactly. */
const MAX_WIDTH = 15;

/**
 * The reads ahead: started after a round of blocks that came one after another by number (at least
 * every other number present), and carried on, one read ahead of the converter, for as long as the
 * blocks keep coming that close.
 */
export class DigestReadsAhead {
  private aheads: Ahead[] = [];

  constructor(private readonly keyOf: (country: string, block: string) => Key) {}

  /** The read ahead whose numbers hold `block` of `country`, if any (the next one starts half-way through the last). */
  covering(country: string, block: string): DigestRead | undefined {
    const number = numberOf(block);
    if (number === undefined) return undefined;
    // The blocks come in ascending order: reads behind this one are done with. A loop, not closures
    // made for every block.
    let ahead: Ahead | undefined;
    let kept = 0;
    for (const a of this.aheads) {
      const alike = a.country === country && a.width === block.length;
      if (alike && a.first + BLOCKS_PER_READ <= number) continue;
      this.aheads[kept++] = a;
      if (alike && !ahead && a.first <= number) ahead = a;
    }
    this.aheads.length = kept;
    if (!ahead) return undefined;
    ahead.seen++;
    const last = this.aheads[this.aheads.length - 1]!;
    if (ahead === last && number - ahead.first >= BLOCKS_PER_READ / 2 && ahead.seen * 4 >= BLOCKS_PER_READ)
      this.start(country, ahead.first + BLOCKS_PER_READ, ahead.width);
    return ahead.read;
  }

  /** A round of `blocks` of `country` was read: when they came one after another, the blocks after them are read ahead. */
  gathered(country: string, blocks: string[]): void {
    const numbers = blocks.map(numberOf);
    const first = numbers[0];
    const last = numbers[numbers.length - 1];
    if (first === undefined || last === undefined || numbers.some((n) => n === undefined)) return;
    const width = blocks[0]!.length;
    if (blocks.some((b) => b.length !== width) || 2 * blocks.length < last - first + 1) return;
    const alike = (a: Ahead) => a.country === country && a.width === width;
    if (this.aheads.some((a) => alike(a) && a.first + BLOCKS_PER_READ > last + 1)) return;
    this.start(country, last + 1, width);
  }

  private start(country: string, first: number, width: number): void {
    const blocks: Key[] = [];
    for (let n = first; n < first + BLOCKS_PER_READ; n++) {
      const block = String(n).padStart(width, '0');
      if (block.length > width) break;
      blocks.push(this.keyOf(country, block));
    }
    if (blocks.length > 0) this.aheads.push({ country, first, width, read: readDigests(blocks), seen: 0 });
  }
}

/** A block's number, when it is digits a double holds exactly. */
function numberOf(block: string | undefined): number | undefined {
  if (!block || block.length > MAX_WIDTH || !/^\d+$/.test(block)) return undefined;
  return Number(block);
}
