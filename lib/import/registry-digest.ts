/**
 * (ext) Registry digests: a registry file imported again reads one item per block of company numbers,
 * not one per company (contract §11.3: an unchanged file goes at least as fast as its rows are read).
 *
 * A registry's units come in company-number order, so they fall in blocks: the companies whose numbers
 * share all but their last digits (`digestBlock`). When a run has imported a block, it keeps one
 * **registry digest** item for it (`REGISTRY_DIGEST#<source>#<country>#<block>`, docs/data-model.md): a
 * hash of the block's unit fingerprints in file order (each one the fingerprint the company was
 * written or found unchanged with, lib/import/registry-import.ts) and the run that wrote it. The next
 * run hashes the block's units as it reads them; when the stored digest is the same, every unit of the
 * block is unchanged and no company of it is read.
 *
 * A digest is trusted only when it says exactly that:
 * - **written after its units**: only once every unit of the block has been judged, its changes queued
 *   and none rejected; and trusted only when the run that wrote it ended whole (its `DONE` mark,
 *   lib/import/store.ts), so that a cut-off run's digests never hide companies it did not write;
 * - **of everything in the block**: its rejected and skipped items are in the digest too (the import
 *   counts and reports them afresh every run, before the digest is looked at); a block with an item
 *   whose effect depends on what is stored (a ceased unit an `--active-only` run leaves out only when
 *   it is not stored) gets none; a withheld name, whose company the import looks up every run, is in
 *   the digest by its number;
 * - **no other write since**: any other import that writes a company a registry wrote (JSON Lines, a
 *   filing, another registry) first replaces the block's item with a fresh `token` and no digest, in
 *   one batch (`markDigestsStale`, called by lib/import/changes.ts before the companies are written). A
 *   run writes its digest only if the item's token is still the one it read before judging the block,
 *   so a write that slips in between two imports' steps leaves no digest, never a wrong one.
 */
import { createHash, randomUUID } from 'node:crypto';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import type { CompanyRef } from '../companies/identifiers';
import { forEachLimited } from '../concurrency';
import { batchGet, batchPut } from '../storage/batch';
import { conditionHeld, dynamodb, tableName } from '../storage/client';
import * as keys from '../storage/keys';
import { NAME_WITHHELD, type RegistryItem } from './sources/unit';
import { doneRuns, markRunDone } from './store';

/**
 * The rules a registry unit is judged by (lib/import/registry-import.ts `readUnit`), in its fingerprint
 * and its block's digest: bump when they change, so every unit is merged again.
 */
export const UNIT_RULES_VERSION = 'registry-unit-1';

/**
 * Digits dropped from a company number to name its block: about 30 companies of a registry share a
 * block (KBO numbers end in two check digits, SIREN numbers in one).
 */
const BLOCK_DIGITS: Record<string, number> = { BE: 4, FR: 3 };

/** The block of a company's (canonical) number. */
export function digestBlock(ref: CompanyRef): string {
  const digits = ref.companyNumber.replace(/\D/g, '');
  return digits.slice(0, Math.max(0, digits.length - (BLOCK_DIGITS[ref.country] ?? 3)));
}

/**
 * What an item read is to its block's digest: a unit by a fingerprint of the unit as the converter gave
 * it (cheaper than judging it; the same unit under the same rules judges the same), a rejected or
 * skipped item by what the import reports of it. `seq` is a unit's sequence number in the run.
 */
export function digestEntry(item: RegistryItem, seq: number, activeOnly: boolean): DigestEntry {
  if (item.kind === 'unit') {
    const { unit } = item;
    // A ceased unit under --active-only is left out or imported as its company is stored or not.
    if (activeOnly && unit.fields.stoppedOn) return { fingerprint: null };
    // The unit's own text (the rules' version is in its block's digest once): the block's digest
    // hashes its units' texts at once, one hash a block, not a unit.
    const fingerprint = JSON.stringify([
      unit.country,
      unit.companyNumber,
      unit.owns,
      unit.fields,
      unit.dropped,
      unit.registryRows ?? null,
      unit.addressForms ?? null,
    ]);
    return { unit: { seq, ref: { country: unit.country, companyNumber: unit.companyNumber }, fingerprint } };
  }
  if (item.kind === 'rejected') return { fingerprint: JSON.stringify(['rejected', item.reason]) };
  const ref = item.company ? { ref: item.company } : {};
  // A skipped unit that a stored company should still get depends on what is stored.
  if (item.unit) return { fingerprint: null, ...ref };
  const company = item.company ? `${item.company.country}#${item.company.companyNumber}` : '';
  // A withheld name erases its company if one is stored (§11.5.6): the import reads that one company's
  // state every run whatever the digest says (lib/import/registry-import.ts), so the rest of its block
  // keeps its digest — a block of 30 is not read for one withheld name.
  if (item.reason === NAME_WITHHELD) return { fingerprint: JSON.stringify(['withheld', company]), ...ref };
  return { fingerprint: JSON.stringify(['skipped', item.reason, company]), ...ref };
}

/** Blocks whose digests are read in one round (BatchGetItem takes 100 keys). */
const BLOCKS_PER_ROUND = 100;
/** Items held back to gather a round of blocks (twice that at most: one round is read while the next gathers). */
const ITEMS_PER_ROUND = 4000;
const WRITES_IN_FLIGHT = 8;

/** A unit as the digest sees it: its order, its company and its fingerprint. */
export interface DigestUnit {
  seq: number;
  ref: CompanyRef;
  fingerprint: string;
}

/**
 * What a read item is to the digest: a unit, or another item (a rejected or skipped one) that the
 * import counts afresh every time, with what of it the digest covers — or null when the block it is
 * in can have no digest (an item whose effect depends on what is stored).
 */
export type DigestEntry =
  | { unit: DigestUnit; ref?: undefined; fingerprint?: undefined }
  | { unit?: undefined; ref?: CompanyRef; fingerprint: string | null };

interface Block<E> {
  key: string;
  /** Its first company (none: items before any company, never a digest). */
  ref: CompanyRef | undefined;
  entries: E[];
  /** Its units' sequence numbers. */
  units: number[];
  /**
   * What the digest covers: each entry's fingerprint (JSON text, never a line break), in file order,
   * hashed in one go when the block is judged — one hash call a block, not two a unit.
   */
  parts: string[];
  eligible: boolean;
}

/** A block's digest: the rules' version and its entries' fingerprints, one a line. */
const blockDigest = (parts: string[]) =>
  createHash('sha256')
    .update(`${UNIT_RULES_VERSION}\n${parts.join('\n')}`)
    .digest('base64url');

/** An entry read, as `check` hands it back: `unchanged` when its block's digest matches. */
export interface Checked<E> {
  entry: E;
  unchanged: boolean;
}

/** A round of blocks and their stored digest items (by `pk`), being read. */
interface Round<E> {
  blocks: Array<Block<E>>;
  stored: Promise<Map<string, Record<string, unknown>>>;
}

/** A digest to write once its block's units are through (`RegistryDigests.batchDone`). */
interface Pending {
  ref: CompanyRef;
  first: number;
  last: number;
  digest: string;
  /** The item's token when it was read (absent: there was no item). */
  token: string | undefined;
  units: number;
  /** Fields its units' judging dropped (the skipped line counts them again when the digest matches). */
  dropped: number;
  rejected: boolean;
}

export class RegistryDigests {
  private readonly pending: Pending[] = [];
  private readonly inFlight = new Map<number, number>();
  private started = 0;
  private runId: string | undefined;
  private readonly runsDone = new Map<string, Promise<boolean>>();
  /** Digests written by this run, and blocks found unchanged by their digest. */
  written = 0;
  matched = 0;
  /** Fields dropped in the blocks whose digest matched, as their digests say. */
  matchedDropped = 0;

  constructor(private readonly source: string) {}

  /**
   * The items in their order, as entries (`see` makes each one's entry and says what it is to the
   * digest), each with `unchanged` true when its block's digest matches (its units need no reading).
   * Handed back a round of blocks at a time: the caller walks each round without an await per entry.
   */
  async *check<T, E>(
    items: AsyncIterable<T>,
    see: (item: T) => { entry: E; digest: DigestEntry },
  ): AsyncGenerator<Array<Checked<E>>> {
    let blocks: Array<Block<E>> = [];
    let held = 0;
    // The round before, its digests being read while the converter goes on with this one: the
    // converter never waits for a round trip (a file imported again is read as fast as converted).
    let reading: Round<E> | null = null;
    for await (const item of items) {
      const { entry, digest: seen } = see(item);
      const ref = seen.unit?.ref ?? seen.ref;
      const current = blocks[blocks.length - 1];
      const key = ref && `${ref.country}#${digestBlock(ref)}`;
      if (ref && key && key !== current?.key) {
        if (blocks.length > BLOCKS_PER_ROUND || held >= ITEMS_PER_ROUND) {
          // The blocks so far are whole (a new one starts): their digests are read in one round.
          if (reading) yield await this.judgeRound(reading);
          reading = this.readRound(blocks);
          blocks = [];
          held = 0;
        }
        blocks.push({ key, ref, entries: [], units: [], parts: [], eligible: true });
      } else if (!current) {
        blocks.push({ key: '', ref: undefined, entries: [], units: [], parts: [], eligible: false });
      }
      const block = blocks[blocks.length - 1]!;
      block.entries.push(entry);
      held++;
      if (seen.unit) block.units.push(seen.unit.seq);
      const part = seen.unit ? seen.unit.fingerprint : seen.fingerprint;
      if (part === null) block.eligible = false;
      else if (block.eligible) block.parts.push(part);
    }
    if (reading) yield await this.judgeRound(reading);
    yield await this.judgeRound(this.readRound(blocks));
  }

  /** Starts reading the digests of a round's blocks. */
  private readRound<E>(blocks: Array<Block<E>>): Round<E> {
    const eligible = blocks.filter((b) => b.eligible && b.ref && b.units.length > 0);
    const stored = batchGet(
      tableName(),
      eligible.map((b) => this.keyOf(b.ref!)),
      { consistent: true },
    ).then((items) => new Map(items.map((item) => [item['pk'] as string, item])));
    // Awaited by `judgeRound`; a failure is seen there, not as an unhandled rejection meanwhile.
    stored.catch(() => undefined);
    return { blocks, stored };
  }

  /** A round's entries, each marked unchanged or not by its block's digest. */
  private async judgeRound<E>({ blocks, stored: reading }: Round<E>): Promise<Array<Checked<E>>> {
    const stored = await reading;
    const checked: Array<Checked<E>> = [];
    for (const block of blocks) {
      const ref = block.eligible && block.units.length > 0 ? block.ref : undefined;
      const item = ref && stored.get(this.keyOf(ref).pk);
      const digest = ref ? blockDigest(block.parts) : '';
      const unchanged =
        ref !== undefined &&
        item !== undefined &&
        item['digest'] === digest &&
        typeof item['run'] === 'string' &&
        (await this.runDone(item['run']));
      if (unchanged) {
        this.matched++;
        this.matchedDropped += typeof item?.['dropped'] === 'number' ? item['dropped'] : 0;
      } else if (ref)
        this.pending.push({
          ref,
          first: block.units[0]!,
          last: block.units[block.units.length - 1]!,
          digest,
          token: typeof item?.['token'] === 'string' ? item['token'] : undefined,
          units: block.units.length,
          dropped: 0,
          rejected: false,
        });
      for (const entry of block.entries) checked.push({ entry, unchanged });
    }
    return checked;
  }

  /** A batch of units (sequence numbers `first`..`last`, in file order) goes to the import. */
  batchStarted(runId: string, first: number, last: number): void {
    this.runId = runId;
    this.inFlight.set(first, last);
    this.started = Math.max(this.started, last);
  }

  /** A batch has been judged and its changes queued (or it failed: its blocks then stay pending). */
  async batchDone(first: number): Promise<void> {
    this.inFlight.delete(first);
    const through = Math.min(this.started, ...[...this.inFlight.keys()].map((seq) => seq - 1));
    let ready = 0;
    while (ready < this.pending.length && this.pending[ready]!.last <= through) ready++;
    await this.write(this.pending.splice(0, ready));
  }

  /** A unit was rejected by the import: its block gets no digest. */
  rejected(seq: number): void {
    const pending = this.pendingOf(seq);
    if (pending) pending.rejected = true;
  }

  /** A unit of a block read afresh was judged: `dropped` fields left out, or rejected (null). */
  judged(seq: number, dropped: number | null): void {
    const pending = this.pendingOf(seq);
    if (!pending) return;
    if (dropped === null) pending.rejected = true;
    else pending.dropped += dropped;
  }

  private pendingOf(seq: number): Pending | undefined {
    return this.pending.find((p) => p.first <= seq && seq <= p.last);
  }

  /** The run ended whole: the digests left are written, and the run marked done so they are trusted. */
  async finish(): Promise<void> {
    await this.write(this.pending.splice(0));
    // The import marks a run done when it wrote a change; a run that wrote only digests marks it here.
    if (this.runId && this.written > 0) await markRunDone(this.runId);
  }

  private async write(ready: Pending[]): Promise<void> {
    const runId = this.runId;
    if (!runId) return;
    await forEachLimited(
      ready.filter((p) => !p.rejected),
      WRITES_IN_FLIGHT,
      async (p) => {
        const held = await conditionHeld(() =>
          dynamodb().send(
            new PutCommand({
              TableName: tableName(),
              Item: {
                ...this.keyOf(p.ref),
                entity: 'RegistryDigest',
                token: randomUUID(),
                digest: p.digest,
                run: runId,
                units: p.units,
                dropped: p.dropped,
              },
              ...(p.token === undefined
                ? { ConditionExpression: 'attribute_not_exists(pk)' }
                : {
                    ConditionExpression: '#token = :token',
                    ExpressionAttributeValues: { ':token': p.token },
                  }),
              ...(p.token === undefined ? {} : { ExpressionAttributeNames: { '#token': 'token' } }),
            }),
          ),
        );
        if (held) this.written++;
      },
    );
  }

  private keyOf(ref: CompanyRef) {
    return keys.registryDigest(this.source, ref.country, digestBlock(ref));
  }

  private runDone(runId: string): Promise<boolean> {
    let done = this.runsDone.get(runId);
    if (!done) {
      done = doneRuns([runId]).then((runs) => runs.has(runId));
      this.runsDone.set(runId, done);
    }
    return done;
  }
}

/**
 * Before other sources write companies a registry wrote: the digest of each such company's block, for
 * each registry that wrote it, is replaced by an item with a fresh token and no digest (one batch), so
 * the registry's next run reads that block's companies again.
 */
export async function markDigestsStale(
  writes: Array<{ company: CompanyRef; registries: readonly string[] }>,
): Promise<void> {
  const stale = new Map<string, Record<string, unknown>>();
  for (const { company, registries } of writes)
    for (const source of registries) {
      const key = keys.registryDigest(source, company.country, digestBlock(company));
      stale.set(key.pk, { ...key, entity: 'RegistryDigest', token: randomUUID() });
    }
  if (stale.size > 0) await batchPut(tableName(), [...stale.values()]);
}
