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
import { companyKey, type CompanyRef } from '../companies/identifiers';
import { gatheredBy } from '../storage/one-action-per-item';
import type { CompanyRecord } from '../companies/record';
import { getCompanyRecords, getCompanyStates, type CompanyState } from '../companies/store';
import { forEachLimited } from '../concurrency';
import { assignLegalEntityIds } from '../legal-entities/assign';
import { loadStageIdScheme, stageIdScheme, type LegalEntityIdScheme } from '../legal-entities/ids';
import type { BatchDerivation, CompanyChange, Completion, Derivation, DerivedWrites } from './change';
import { completeImport, deriveBatch, deriveChange, derivedWriter, oneAtATime } from './derive';
import { contactClaimer, type ContactClaimer } from './contacts';
import { GatheredWrites } from './gathered-writes';
import { judgeLines, sketchLine, type Entry, type Judge, type Line } from './lines';
import { nextTurn, type Turn } from './turns';
import {
  deleteJournal,
  doneRuns,
  getJournals,
  markRunDone,
  putCompanies,
  putJournal,
  runOf,
  type Journal,
  type StoredJournal,
} from './store';

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
}

export interface ImportSummary {
  /** Non-blank lines read. */
  read: number;
  imported: number;
  created: number;
  changed: number;
  unchanged: number;
  rejected: number;
  updates: number;
  seconds: number;
}

const DERIVATIONS_IN_FLIGHT = 16;

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
  const started = performance.now();
  // Before anything is read or written: a deployed stage's ids need its secret (lib/legal-entities/ids.ts).
  await loadStageIdScheme();
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
      options.onRejected?.(line, reason);
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

  const flush = async (batch: Line[]) => {
    // The batch's turns to judge its lines (see `judgeLines`) and to claim its contacts come after
    // the batch before it's.
    const turns = { judge: nextTurn(run.judgeTurns), claim: nextTurn(run.claimTurns) };
    run.judgeTurns = turns.judge.done;
    run.claimTurns = turns.claim.done;
    const job = importBatch(batch, run, turns)
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

  let lineNumber = 0;
  let batch: Line[] = [];
  for await (const next of lines) {
    const text = typeof next === 'string' ? next : next.text;
    lineNumber = typeof next === 'string' ? lineNumber + 1 : next.line;
    if (failure) break;
    if (text.trim() === '') continue;
    summary.read++;
    batch.push({ line: lineNumber, text, ...sketchLine(text) });
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
  await (options.complete ?? completeImport)();
  summary.seconds = (performance.now() - started) / 1000;
  return summary;
}

/** The figures of a run that has read nothing yet. */
export function emptySummary(): ImportSummary {
  return { read: 0, imported: 0, created: 0, changed: 0, unchanged: 0, rejected: 0, updates: 0, seconds: 0 };
}

/** `read N, imported M (new A, changed B, unchanged C), rejected R, updates U, in T s (X companies/s)` */
export function formatSummary(s: ImportSummary): string {
  const rate = s.seconds > 0 ? Math.round(s.imported / s.seconds) : s.imported;
  return (
    `read ${s.read}, imported ${s.imported} (new ${s.created}, changed ${s.changed}, unchanged ${s.unchanged}), ` +
    `rejected ${s.rejected}, updates ${s.updates}, in ${s.seconds.toFixed(1)} s (${rate} companies/s)`
  );
}

/** What one run shares between its batches. */
interface Run {
  id: string;
  batches: number;
  asOf: string;
  derive: Derivation;
  /** One batch at a time (see `oneAtATime`). */
  deriveBatch: BatchDerivation;
  /** Makes the writes a batch's derivations hand back (lib/import/derive.ts `derivedWriter`). */
  writeDerived: (writes: DerivedWrites) => Promise<void>;
  summary: ImportSummary;
  reject: (line: number, reason: string) => void;
  /** The first line of each company read so far, and the rejections (lib/import/lines.ts `judgeLines`). */
  judge: Judge;
  /** Settle when the last batch flushed has judged its lines, and claimed its contacts: the next one's turns. */
  judgeTurns: Promise<void>;
  claimTurns: Promise<void>;
  /** Changed companies to write (their contacts claimed), and how many make a batch. */
  changes: Change[];
  /** The records of those changes, by `companyKey`, until they are written: later lines' claims see them. */
  written: Map<string, CompanyRecord>;
  batchSize: number;
  /** Change ids whose journal is known to be gone: no need to look for it again. */
  settled: Set<string>;
  /** Earlier runs, looked up once each: whether they ended with every batch derived. */
  runsDone: Map<string, Promise<boolean>>;
  /** Claims a batch's new contact ids (lib/import/contacts.ts), one batch at a time in file order. */
  claimContacts: ContactClaimer;
  idScheme: () => LegalEntityIdScheme;
}

/** A changed company to write: its line, its record as stored before (null when new) and its legal entity id. */
type Change = Entry & { before: CompanyRecord | null; legalEntityId: string | undefined };

/**
 * One batch: its companies' states read (one BatchGet for the lines' guessed companies), its lines
 * judged in file order, its changed companies' contacts claimed in file order, then those written and
 * derived a full batch at a time.
 */
async function importBatch(lines: Line[], run: Run, turns: { judge: Turn; claim: Turn }): Promise<void> {
  try {
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
      if (unread.length > 0)
        for (const [key, state] of await getCompanyStates(unread)) states.set(key, state);
    } finally {
      // After the batch before, even when this one failed: the turns stay in file order.
      void turns.judge.ready.then(turns.judge.end);
    }
    const stateOf = (e: Entry) => states.get(companyKey(e.record));

    // Changes of a cut-off earlier run whose derivations may not have run: derive them first.
    const changeIds = new Set(
      [...states.values()].map((s) => s.changeId).filter((id) => !run.settled.has(id)),
    );
    for (const journal of await getJournals(await mayHaveJournals([...changeIds], run))) {
      // Awaited first: `x += await …` reads x before the wait and would lose what other batches added.
      const updates = await resume(journal, run);
      run.summary.updates += updates;
    }
    for (const id of changeIds) run.settled.add(id);

    const changed = batch.filter((e) => stateOf(e)?.hash !== e.hash);
    const unchanged = batch.length - changed.length;
    run.summary.unchanged += unchanged;
    run.summary.imported += unchanged;
    const stored = await getCompanyRecords(
      changed.filter((e) => stateOf(e) !== undefined).map((e) => e.record),
    );
    const withBefore = changed.map((e): Change => {
      const found = stored.get(companyKey(e.record));
      return { ...e, before: found?.record ?? null, legalEntityId: found?.state.legalEntityId };
    });

    await turns.claim.ready;
    const accepted = await gatheredBy('the contact claims', () =>
      run.claimContacts(withBefore, (company) => run.written.get(companyKey(company))),
    );
    for (const e of accepted) run.written.set(companyKey(e.record), e.record);
    // Changes are written a full batch at a time, whichever batches of lines they came from: a
    // refresh in which few companies changed journals and writes a hundred changes at once, not a few.
    run.changes.push(...accepted);
  } finally {
    void turns.claim.ready.then(turns.claim.end);
  }
  while (run.changes.length >= run.batchSize) await writeChanges(run.changes.splice(0, run.batchSize), run);
}

/**
 * A batch of changed companies, their contacts claimed: legal entity ids assigned, the batch's
 * journal, the companies written, their derivations made, then the journal removed.
 */
async function writeChanges(accepted: Change[], run: Run): Promise<void> {
  // Known companies carry their legal entity id; the others claim theirs, the batch's together.
  const known = (e: Change) => e.legalEntityId;
  const claimed = await gatheredBy('the legal entity ids', () =>
    assignLegalEntityIds(
      accepted.filter((e) => !known(e)).map((e) => companyRef(e.record)),
      run.idScheme(),
    ),
  );
  const legalEntityIdOf = (e: Change) => known(e) ?? claimed.get(companyKey(e.record))!;

  const changeId = `${run.id}.${++run.batches}`;
  const journal = await putJournal({
    changeId,
    asOf: run.asOf,
    entries: accepted.map((e) => ({ company: companyRef(e.record), before: e.before })),
  });
  await gatheredBy('the companies', () =>
    putCompanies(
      accepted.map((e) => ({
        record: e.record,
        state: { hash: e.hash, changeId, legalEntityId: legalEntityIdOf(e), lineHash: e.lineHash },
      })),
    ),
  );
  // Stored now: later lines' claims read them from the table.
  for (const e of accepted) run.written.delete(companyKey(e.record));
  const changes = accepted.map((e) => ({
    before: e.before,
    after: e.record,
    asOf: run.asOf,
    changeId,
    legalEntityId: legalEntityIdOf(e),
  }));
  // Awaited first: `x += await …` reads x before the wait and would lose what other batches added.
  const updates = await deriveAndWrite(changes, run);
  run.summary.updates += updates;
  await deleteJournal(journal);
  run.settled.add(changeId);

  run.summary.imported += accepted.length;
  for (const change of changes) {
    if (change.before) run.summary.changed++;
    else run.summary.created++;
  }
}

/** The change ids whose journal may still exist: those of runs not known to have ended whole. */
async function mayHaveJournals(changeIds: string[], run: Run): Promise<string[]> {
  const unknown = [...new Set(changeIds.map(runOf))].filter((id) => !run.runsDone.has(id));
  if (unknown.length > 0) {
    const lookup = doneRuns(unknown);
    for (const id of unknown)
      run.runsDone.set(
        id,
        lookup.then((done) => done.has(id)),
      );
    // A failed lookup is not kept: the next batch asks again.
    lookup.catch(() => unknown.forEach((id) => run.runsDone.delete(id)));
  }
  const done = await Promise.all(changeIds.map((id) => run.runsDone.get(runOf(id))!));
  return changeIds.filter((_, i) => !done[i]);
}

/** Derives the changes of a cut-off run's journal whose companies were written, then drops it. */
async function resume(journal: Journal & StoredJournal, run: Run): Promise<number> {
  const current = await getCompanyRecords(journal.entries.map((e) => e.company));
  const changes: CompanyChange[] = [];
  for (const entry of journal.entries) {
    const now = current.get(companyKey(entry.company));
    // Written by this change (a later change would name its own journal): derive it.
    if (now?.state.changeId !== journal.changeId) continue;
    changes.push({
      before: entry.before,
      after: now.record,
      asOf: journal.asOf,
      changeId: journal.changeId,
      ...(now.state.legalEntityId ? { legalEntityId: now.state.legalEntityId } : {}),
    });
  }
  const updates = await deriveAndWrite(changes, run);
  await deleteJournal(journal);
  return updates;
}

/** Runs a batch's derivations and makes the writes they hand back; answers the number of updates. */
async function deriveAndWrite(changes: CompanyChange[], run: Run): Promise<number> {
  const writes = new GatheredWrites();
  const together = await gatheredBy('the batch derivations', () => run.deriveBatch(changes));
  let updates = together.updates;
  writes.add('the batch derivations', together.writes);
  await forEachLimited(changes, DERIVATIONS_IN_FLIGHT, async (change) => {
    const derived = await gatheredBy('the derivations', () => run.derive(change));
    updates += derived.updates;
    writes.add('the derivations', derived.writes);
  });
  await run.writeDerived(writes);
  return updates;
}

const companyRef = ({ country, companyNumber }: CompanyRef): CompanyRef => ({ country, companyNumber });
