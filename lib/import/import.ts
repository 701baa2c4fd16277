/**
 * The import (contract §11.2): company records as JSON Lines in, stored companies and their derived
 * facts out. The one write path for company data — the demo data, a customer stage's registry
 * extracts, and on AWS the workers of the bulk import all run this.
 *
 * - Each line is validated on its own; a bad one is rejected with its line number and reason and
 *   nothing of it is written.
 * - Idempotent: a company whose canonical record hashes to what is stored is not written again and
 *   derives nothing. A line byte for byte the one its company was written from is known unchanged
 *   before it is even parsed (lib/import/lines.ts): a re-import of unchanged data costs a read and a
 *   hash per line.
 * - Resumable: a company is one item, written whole; each batch's changes are journaled (the records
 *   before them) until their derivations ran, and every written company names its journal, so a run
 *   cut off at any point and started again derives what was missed (lib/import/store.ts). A run that
 *   ends whole says so, so that later runs look for its journals once, not once per batch.
 * - Streaming: lines are read in batches of 100 with a bounded number of batches in flight, and their
 *   changed companies written 100 at a time, so memory stays flat whatever the file size (apart from a
 *   number per company to spot a company that appears twice, and a change id per batch).
 * - Cheap: per changed company one item written (plus its new contact claims), everything in batch
 *   requests; an unchanged company costs the read of its state.
 */
import { randomUUID } from 'node:crypto';
import { companyKey } from '../companies/identifiers';
import { getCompanyStates, type CompanyState } from '../companies/store';
import { loadStageIdScheme, stageIdScheme, type LegalEntityIdScheme } from '../legal-entities/ids';
import type { BatchDerivation, Completion, Derivation } from '../derivation/change';
import { emptySummary, queueChanges, writeChanges, type ImportSummary, type Run } from './changes';
import { completeImport, deriveBatch, deriveChange, derivedWriter, oneAtATime } from './derive';
import { contactClaimer } from './contacts';
import { holdingImportLease, type ImportLeaseOptions } from './lease';
import { judgeLines, sketchLine, type Entry, type Line } from './lines';
import { markRunDone } from './store';
import { nextTurn, type Turn } from './turns';

export { emptySummary, formatSummary, type Change, type ImportSummary, type Run } from './changes';

export interface ImportOptions {
  /** The as-of date (`YYYY-MM-DD`) of the data: the date of updates dated "the day of the change". */
  asOf: string;
  /** Called with each rejected line (1-based, counting every physical line) and its reason. */
  onRejected?: (line: number, reason: string) => void;
  /** Called after each batch with the figures so far. */
  onProgress?: (summary: ImportSummary) => void;
  /** The derivation point; tests may watch it. */
  derive?: Derivation;
  /** What a batch's changes derive together (the holdings); tests may replace it. */
  deriveBatch?: BatchDerivation;
  /** What runs once when the run ends (lib/import/derive.ts). */
  complete?: Completion;
  /** Records per batch (one round of reads for them all). */
  batchSize?: number;
  /** Batches in flight at once. */
  concurrency?: number;
  /** How legal entity ids are made; the stage's by default (tests shrink the id space). */
  idScheme?: () => LegalEntityIdScheme;
  /** How the run holds the stage's import lease (lib/import/lease.ts); tests name the holder, turn the clock. */
  lease?: ImportLeaseOptions;
}

/**
 * A line of a file with its number, for a part of a file (the import engine's partitions): the lines
 * of one company meet in one part, in file order, so the part's verdicts are the file's.
 */
export interface NumberedLine {
  line: number;
  text: string;
}

export async function importCompanies(
  lines: AsyncIterable<string | NumberedLine>,
  options: ImportOptions,
): Promise<ImportSummary> {
  return runImport(
    options,
    async function* read(summary) {
      let lineNumber = 0;
      for await (const next of lines) {
        const text = typeof next === 'string' ? next : next.text;
        lineNumber = typeof next === 'string' ? lineNumber + 1 : next.line;
        if (text.trim() === '') continue;
        summary.read++;
        yield { line: lineNumber, text, ...sketchLine(text) };
      }
    },
    importBatch,
  );
}

/**
 * What a batch of read items becomes (one round of reads for them all): the lines of a file
 * (`importBatch`), the units of a registry (lib/import/registry-import.ts). It judges its items in
 * its `judge` turn and claims its changes' contacts in its `claim` turn (lib/import/changes.ts
 * `queueChanges`), ending each as soon as it is done, so that the batches judge and claim in file
 * order.
 */
export type BatchImport<T> = (batch: T[], run: Run, turns: BatchTurns) => Promise<void>;

/** A batch's turns (lib/import/turns.ts). */
export interface BatchTurns {
  judge: Turn;
  claim: Turn;
}

/**
 * The run every import shares, one at a time per stage: under the stage's import lease from before
 * anything is read until every company is written and derived (lib/import/lease.ts; a run that finds it
 * held waits); its completions then run after the lease is freed (they write no company; the lookalike
 * recompute holds its own lease). The items `read` yields (it counts what it reads on the summary) are cut into batches of
 * `batchSize`, a bounded number of batches in flight, their changes written a full batch at a time,
 * the run marked done, then the completions.
 */
export async function runImport<T>(
  options: ImportOptions,
  read: (summary: ImportSummary) => AsyncIterable<T>,
  importItems: BatchImport<T>,
  onReject: (line: number, reason: string) => void = (line, reason) => options.onRejected?.(line, reason),
): Promise<ImportSummary> {
  // Before anything is read or written, the lease too: a deployed stage's ids need its secret
  // (lib/legal-entities/ids.ts).
  await loadStageIdScheme();
  const summary = await holdingImportLease(
    () => runUnderLease(options, read, importItems, onReject),
    options.lease,
  );
  const completing = performance.now();
  await (options.complete ?? completeImport)();
  summary.seconds += (performance.now() - completing) / 1000;
  return summary;
}

async function runUnderLease<T>(
  options: ImportOptions,
  read: (summary: ImportSummary) => AsyncIterable<T>,
  importItems: BatchImport<T>,
  onReject: (line: number, reason: string) => void,
): Promise<ImportSummary> {
  const started = performance.now();
  const batchSize = options.batchSize ?? 100;
  const concurrency = options.concurrency ?? 4;
  const summary = emptySummary();
  const run: Run = {
    id: randomUUID().slice(0, 8),
    batches: 0,
    asOf: options.asOf,
    derive: options.derive ?? deriveChange,
    deriveBatch: oneAtATime(options.deriveBatch ?? deriveBatch),
    writeDerived: derivedWriter(),
    summary,
    reject: (line, reason) => {
      summary.rejected++;
      onReject(line, reason);
    },
    judge: {
      firstLineOf: new Map(),
      reject: (line, reason) => run.reject(line, reason),
      unchanged: () => {
        summary.unchanged++;
        summary.imported++;
      },
    },
    judgeTurns: Promise.resolve(),
    claimTurns: Promise.resolve(),
    changes: [],
    written: new Map(),
    batchSize,
    settled: new Set(),
    runsDone: new Map(),
    claimContacts: contactClaimer((line, reason) => run.reject(line, reason)),
    idScheme: options.idScheme ?? stageIdScheme,
  };
  const inFlight = new Set<Promise<void>>();
  let failure: unknown = null;

  const flush = async (batch: T[]) => {
    // The batch's turns to judge its items (see `judgeLines`) and to claim its contacts come after
    // the batch before it's.
    const turns = { judge: nextTurn(run.judgeTurns), claim: nextTurn(run.claimTurns) };
    run.judgeTurns = turns.judge.done;
    run.claimTurns = turns.claim.done;
    const job = importItems(batch, run, turns)
      .finally(() => endTurns(turns))
      .then(() => {
        summary.seconds = (performance.now() - started) / 1000;
        options.onProgress?.({ ...summary });
      })
      .catch((error: unknown) => {
        failure ??= error;
      })
      .finally(() => inFlight.delete(job));
    inFlight.add(job);
    while (inFlight.size >= concurrency) await Promise.race(inFlight);
  };

  let batch: T[] = [];
  for await (const item of read(summary)) {
    if (failure) break;
    batch.push(item);
    if (batch.length === batchSize) {
      await flush(batch);
      batch = [];
    }
  }
  if (batch.length > 0 && !failure) await flush(batch);
  await Promise.all(inFlight);
  if (failure) throw failure;
  if (run.changes.length > 0) await writeChanges(run.changes.splice(0), run);
  // Every batch derived and its journal gone: later runs need not look for this run's journals.
  if (run.batches > 0) await markRunDone(run.id);
  summary.seconds = (performance.now() - started) / 1000;
  return summary;
}

/** Ends a batch's turns, each after the one before it, even when the batch failed: they stay in file order. */
function endTurns({ judge, claim }: BatchTurns): void {
  void judge.ready.then(judge.end);
  void claim.ready.then(claim.end);
}

/**
 * One batch: its companies' states read (one BatchGet for the lines' guessed companies), its lines
 * judged in file order, then its changed companies queued to be written and derived.
 */
async function importBatch(lines: Line[], run: Run, turns: BatchTurns): Promise<void> {
  let batch: Entry[];
  let states: Map<string, CompanyState>;
  try {
    const guesses = lines.flatMap((l) => (l.guess ? [l.guess] : []));
    states = await getCompanyStates(guesses);
    await turns.judge.ready;
    batch = judgeLines(lines, (ref) => states.get(companyKey(ref))?.lineHash, run.judge);
    // A company whose line did not say it plainly: its state is read now.
    const read = new Set(guesses.map(companyKey));
    const unread = batch.filter((e) => !read.has(companyKey(e.record))).map((e) => e.record);
    if (unread.length > 0) for (const [key, state] of await getCompanyStates(unread)) states.set(key, state);
  } finally {
    void turns.judge.ready.then(turns.judge.end);
  }
  await queueChanges(batch, states, run, turns.claim);
}
