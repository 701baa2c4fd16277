/**
 * (ext) Registry digests: a registry file imported again reads one item per block of company numbers,
 * not one per company (contract §11.3: an unchanged file goes at least as fast as its rows are read).
 *
 * A registry's units come in company-number order, so they fall in blocks: the companies whose numbers
 * share all but their last digits (`digestBlock`). When a run has imported a block, it keeps one
 * **registry digest** item for it (`REGISTRY_DIGEST#<source>#<country>#<block>`, docs/data-model.md): a
 * hash of the block's units in file order — each unit's raw values as the converter read them, before
 * any mapping (`RawUnit`; the mapping's version is in the hash), or the fingerprint of a unit a
 * converter handed on mapped — and the run that wrote it. The next run hashes the block's units as it
 * reads them; when the stored digest is the same, every unit of the block is unchanged: none of them is
 * mapped, and no company of it is read.
 *
 * A digest is trusted only when it says exactly that:
 * - **written after its units**: only once every unit of the block has been judged, its changes queued
 *   and none rejected; and trusted only when the run that wrote it ended whole (its `DONE` mark,
 *   lib/import/store.ts), so that a cut-off run's digests never hide companies it did not write;
 * - **of everything in the block**: its rejected and skipped items are in the digest too (the import
 *   counts and reports them afresh every run, before the digest is looked at); a block with an item
 *   whose effect depends on what is stored (a ceased unit an `--active-only` run leaves out only when
 *   it is not stored) gets none; a withheld name is in the digest by its number, and its item keeps
 *   that number (`withheld`) so that a block matched reports it again without mapping its unit;
 * - **of its withheld names too**: a withheld name erases its company if stored (§11.5.6); a digest is
 *   written once they were found not stored, and says so (`vouchesWithheld`): a block it matches counts
 *   them as skipped, reading nothing. Another import creating a company of the block marks it stale
 *   (lib/import/registry-digest-stale.ts); a run reading the block afresh replaces it by one vouching for
 *   nothing (`unvouched`) before any of its units is written;
 * - **no other write since**: any other import that writes a company a registry wrote (JSON Lines, a
 *   filing, another registry) first replaces the block's item with a fresh `token` and no digest, in
 *   one batch (`markDigestsStale`, called by lib/import/changes.ts before the companies are written). A
 *   run writes its digest only if the item's token is still the one it read before judging the block,
 *   so a write that slips in between two imports' steps leaves no digest, never a wrong one.
 */
import { randomUUID } from 'node:crypto';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import type { CompanyRef } from '../companies/identifiers';
import { forEachLimited } from '../concurrency';
import { batchPut } from '../storage/batch';
import { conditionHeld, dynamodb, tableName } from '../storage/client';
import * as keys from '../storage/keys';
import { BLOCKS_PER_READ, DigestReadsAhead, readDigests, type DigestRead } from './registry-digest-reads';
import { digestEntry, digestRole } from './registry-fingerprint';
import {
  addEntry,
  blockDigest,
  blockEntry,
  blockOf,
  digestBlock,
  newBlock,
  numbered,
  sameBlock,
  withheldEntry,
  type Block,
  type CheckedRound,
  type Pending,
} from './registry-digest-block';
import { NAME_WITHHELD, type RawUnit, type ReadItem, type ReadItems } from './sources/unit';
import { digestsKept, vouchesWithheld } from './registry-digest-stale';
import { doneRuns, markRunDone } from './store';

export { digestBlock, UNIT_RULES_VERSION, type CheckedRound, type Walked } from './registry-digest-block';
export { markDigestsStale } from './registry-digest-stale';

/** Items held back to gather a round of blocks. */
const ITEMS_PER_ROUND = 4000;
/**
 * Items held at most while their digests are read: a round trip that takes longer than converting a
 * round (a busy DynamoDB) does not stall the converter until about three more rounds are held. A block
 * is judged as soon as its digests are in, not when this many are held.
 */
const MOST_HELD = 4 * ITEMS_PER_ROUND;
const WRITES_IN_FLIGHT = 8;

const isBatch = (read: ReadItem | readonly ReadItem[]): read is readonly ReadItem[] => Array.isArray(read);

/** Blocks gathered for one read of their digests (sent when full, or when the blocks after them are read ahead). */
interface Round {
  blocks: Block[];
  items: number;
  read?: DigestRead;
}

/** A block held until its digest is in: read with its round, or ahead. */
interface Held {
  block: Block;
  from: Round | DigestRead;
}

const readOf = (from: Round | DigestRead): DigestRead | undefined => ('stored' in from ? from : from.read);

export class RegistryDigests {
  private readonly pending: Pending[] = [];
  private readonly inFlight = new Map<number, number>();
  private started = 0;
  private seq = 0;
  private runId: string | undefined;
  private readonly runsDone = new Map<string, Promise<boolean>>();
  /** Items replacing digests that vouched for withheld names of blocks read afresh, put before their units go on. */
  private readonly unvouched: Array<Record<string, unknown>> = [];
  /** The marks that this registry keeps digests of a country (`digestsKept`), by country. */
  private readonly kept = new Map<string, Promise<void>>();
  /** Digests written by this run, and blocks found unchanged by their digest. */
  written = 0;
  matched = 0;
  /** Fields dropped in the blocks whose digest matched, as their digests say. */
  matchedDropped = 0;

  constructor(private readonly source: string) {}

  /**
   * The items in their order, in rounds of the blocks whose digests are in: the units of blocks whose
   * digest matches only counted (they need no reading), every other item handed back with its sequence
   * number — the caller walks each round without an await per item.
   */
  async *check(items: ReadItems, activeOnly: boolean): AsyncGenerator<CheckedRound> {
    const ahead = new DigestReadsAhead((country, block) => this.keyOf(country, block));
    // The blocks in file order, until judged (the last one still gathering its items).
    const held: Held[] = [];
    let heldItems = 0;
    let round: Round = { blocks: [], items: 0 };
    let current: Held | undefined;
    // `more`: blocks may follow, so those after a round of consecutive ones are read ahead.
    const send = (more = true) => {
      if (round.blocks.length === 0) return;
      // An ineligible block's item too: if it vouches for withheld names, reading the block afresh unvouches it.
      const read = round.blocks.filter((b) => b.ref && b.units > 0);
      round.read = readDigests(read.map((b) => this.keyOf(b.ref!.country, b.key)));
      // One country's blocks read ahead after them (a registry's units are of one).
      const countries = new Set(read.map((b) => b.ref!.country));
      if (more && countries.size === 1)
        ahead.gathered(
          [...countries][0]!,
          read.map((b) => b.key),
        );
      round = { blocks: [], items: 0 };
    };
    // Each item to its block, a new block read ahead or with the round gathering.
    const add = (item: ReadItem): void => {
      // A raw unit is held as its text, unmapped (mapped only if its block is read afresh).
      const seen = item.kind === 'raw' ? undefined : digestEntry(item, activeOnly);
      const company = seen ? seen.company : (item as RawUnit).company;
      if (company && !(current?.block.ref && sameBlock(current.block, company))) {
        const key = blockOf(company.country, company.companyNumber);
        let from: Round | DigestRead | undefined = ahead.covering(company.country, key);
        if (from) send();
        else {
          if (round.blocks.length >= BLOCKS_PER_READ || round.items >= ITEMS_PER_ROUND) send();
          from = ahead.covering(company.country, key) ?? round;
        }
        const ref = {
          country: company.country as CompanyRef['country'],
          companyNumber: company.companyNumber,
        };
        current = { block: newBlock(key, ref, true), from };
        held.push(current);
      } else if (!current) {
        current = { block: newBlock('', undefined, false), from: round };
        held.push(current);
      }
      if (current.from === round) {
        if (round.blocks[round.blocks.length - 1] !== current.block) round.blocks.push(current.block);
        round.items++;
      }
      addEntry(current.block, item, seen);
      heldItems++;
    };
    // The blocks before the last whose digests are in, judged; when too many items are held, the first
    // block's digests are waited for.
    const judgeReady = async (all: boolean): Promise<CheckedRound> => {
      const judged: CheckedRound = { items: [], unchanged: 0 };
      while (held.length > (all ? 0 : 1)) {
        const next = held[0]!;
        let read = readOf(next.from);
        if (!read?.settled && !all && heldItems <= MOST_HELD) break;
        if (!read) {
          send();
          read = readOf(next.from)!;
        }
        held.shift();
        heldItems -= next.block.parts.length;
        await this.judgeBlock(next.block, await read.stored, activeOnly, judged);
      }
      // Before any unit of the blocks read afresh goes to the import.
      if (this.unvouched.length > 0) await batchPut(tableName(), this.unvouched.splice(0));
      return judged;
    };
    for await (const read of items) {
      if (!isBatch(read)) add(read);
      else for (const item of read) add(item);
      const judged = await judgeReady(false);
      if (judged.items.length > 0 || judged.unchanged > 0) yield judged;
    }
    send(false);
    yield await judgeReady(true);
  }

  /** A block's items to import or report (into `round`), or only counted when its digest matches. */
  private async judgeBlock(
    block: Block,
    stored: Map<string, Record<string, unknown>>,
    activeOnly: boolean,
    round: CheckedRound,
  ): Promise<void> {
    const ref = block.eligible && block.units > 0 ? block.ref : undefined;
    const item =
      block.ref && block.units > 0 ? stored.get(this.keyOf(block.ref.country, block.key).pk) : undefined;
    const digest = ref ? blockDigest(block, activeOnly) : '';
    const others = item?.['others'];
    const unchanged =
      ref !== undefined &&
      item !== undefined &&
      item['digest'] === digest &&
      Array.isArray(others) &&
      typeof item['run'] === 'string' &&
      (await this.runDone(item['run']));
    if (unchanged) {
      this.matched++;
      this.matchedDropped += typeof item?.['dropped'] === 'number' ? item['dropped'] : 0;
      round.unchanged += block.parts.length - others.length;
      // Rejected and skipped items are reported afresh; a withheld name looks up its company unless
      // the digest vouches that it is not stored.
      const withheld = item['withheld'] as Pending['withheld'] | undefined;
      const vouched = item['vouchesWithheld'] === true;
      let first = 0;
      for (const at of others as number[]) {
        const company = withheld?.[at];
        const next = company
          ? withheldEntry(block, at, vouched ? undefined : company)
          : blockEntry(block, at);
        const seq = numbered(next) ? ++this.seq : 0;
        first ||= seq;
        round.items.push({ item: next, seq });
      }
      // A digest from before digests vouched for withheld names: once its withheld names were looked
      // up (found not stored, or erased: then the erasure leaves it stale), it is written again vouching.
      if (first > 0 && !vouched)
        this.pending.push({
          ref: ref!,
          first,
          last: this.seq,
          digest,
          token: typeof item['token'] === 'string' ? item['token'] : undefined,
          units: block.parts.length - others.length,
          others: others as number[],
          withheld: withheld!,
          dropped: typeof item['dropped'] === 'number' ? item['dropped'] : 0,
          rejected: false,
        });
      return;
    }
    let first = 0;
    let eligible = ref !== undefined;
    const reported: number[] = [];
    const withheld: Pending['withheld'] = {};
    for (let at = 0; at < block.parts.length; at++) {
      const next = blockEntry(block, at);
      const seq = numbered(next) ? ++this.seq : 0;
      first ||= seq;
      const role = digestRole(next, activeOnly);
      if (role === 'stored') eligible = false;
      else if (role === 'reported') {
        reported.push(at);
        if (next.kind === 'skipped' && next.reason === NAME_WITHHELD && next.company)
          withheld[at] = [next.company.country, next.company.companyNumber];
      }
      round.items.push({ item: next, seq });
    }
    let token = typeof item?.['token'] === 'string' ? item['token'] : undefined;
    if (item && vouchesWithheld(item)) {
      token = randomUUID();
      this.unvouched.push({ ...this.keyOf(block.ref!.country, block.key), entity: 'RegistryDigest', token });
    }
    if (ref && eligible)
      this.pending.push({
        ref,
        first,
        last: this.seq,
        digest,
        token,
        units: block.parts.length - reported.length,
        others: reported,
        withheld,
        dropped: 0,
        rejected: false,
      });
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
        await this.keep(p.ref.country);
        const held = await conditionHeld(() =>
          dynamodb().send(
            new PutCommand({
              TableName: tableName(),
              Item: {
                ...this.keyOf(p.ref.country, digestBlock(p.ref)),
                entity: 'RegistryDigest',
                token: randomUUID(),
                digest: p.digest,
                run: runId,
                units: p.units,
                others: p.others,
                withheld: p.withheld,
                vouchesWithheld: true,
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

  /** The mark that this registry keeps digests of `country`, put once a run before its first digest. */
  private keep(country: string): Promise<void> {
    let kept = this.kept.get(country);
    if (!kept) {
      kept = batchPut(tableName(), [{ ...digestsKept(this.source, country), entity: 'RegistryDigestsKept' }]);
      this.kept.set(country, kept);
    }
    return kept;
  }

  /** The digest item of a block of `country`'s company numbers. */
  private keyOf(country: string, block: string) {
    return keys.registryDigest(this.source, country, block);
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
