/**
 * The import (contract §11.2): company records as JSON Lines in, stored companies and their derived
 * facts out. The one write path for company data — the demo data, a customer stage's registry
 * extracts, and on AWS the workers of the bulk import all run this.
 *
 * - Each line is validated on its own; a bad one is rejected with its line number and reason and
 *   nothing of it is written.
 * - Idempotent: a company whose canonical record hashes to what is stored is not written again and
 *   derives nothing.
 * - Resumable: a company is one item, written whole; each batch's changes are journaled (the records
 *   before them) until their derivations ran, and every written company names its journal, so a run
 *   cut off at any point and started again derives what was missed (lib/import/store.ts).
 * - Streaming: lines are processed in batches of 100 with a bounded number of batches in flight, so
 *   memory stays flat whatever the file size (apart from a number per company to spot a company that
 *   appears twice, and a change id per batch).
 * - Cheap: per changed company one item written (plus its new contact claims), everything in batch
 *   requests; an unchanged company costs half a read.
 */
import { randomUUID } from 'node:crypto';
import { companyKey, type CompanyRef } from '../companies/identifiers';
import { parseCompanyRecord, recordHash, RECORD_LIMITS, type CompanyRecord } from '../companies/record';
import { getCompanyRecords, getCompanyStates } from '../companies/store';
import { forEachLimited } from '../concurrency';
import { assignLegalEntityIds } from '../legal-entities/assign';
import { loadStageIdScheme, stageIdScheme, type LegalEntityIdScheme } from '../legal-entities/ids';
import { batchDelete, batchPut } from '../storage/batch';
import { batchAdd, batchSetChanges, type Addition, type SetChange } from '../storage/transactions';
import { tableName } from '../storage/client';
import type { BatchDerivation, CompanyChange, Completion, Derivation, DerivedWrites } from './change';
import { collectWrites, completeImport, deriveBatch, deriveChange } from './derive';
import { contactClaimer, type ContactClaimer } from './contacts';
import {
  deleteJournal,
  getJournals,
  putCompanies,
  putJournal,
  releaseContacts,
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

interface Entry {
  line: number;
  record: CompanyRecord;
  hash: string;
}

const COUNTRY_INDEX = { BE: 0, NL: 1, FR: 2 } as const;
/** Every canonical number has at most 10 digits: country and number fit one safe integer. */
const companyNumberKey = (ref: CompanyRef) => COUNTRY_INDEX[ref.country] * 1e10 + Number(ref.companyNumber);
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
    transact: oneAtATime(writeTransactional),
    summary,
    reject: (line, reason) => {
      summary.rejected++;
      options.onRejected?.(line, reason);
    },
    settled: new Set(),
    claimContacts: contactClaimer((line, reason) => run.reject(line, reason)),
    idScheme: options.idScheme ?? stageIdScheme,
  };
  const firstLineOf = new Map<number, number>();
  const inFlight = new Set<Promise<void>>();
  let failure: unknown = null;

  const flush = async (batch: Entry[]) => {
    const job = importBatch(batch, run)
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
  let batch: Entry[] = [];
  for await (const next of lines) {
    const text = typeof next === 'string' ? next : next.text;
    lineNumber = typeof next === 'string' ? lineNumber + 1 : next.line;
    if (failure) break;
    if (text.trim() === '') continue;
    summary.read++;
    const parsed = parseLine(text);
    if (!parsed.ok) {
      run.reject(lineNumber, parsed.reason);
      continue;
    }
    const key = companyNumberKey(parsed.record);
    const first = firstLineOf.get(key);
    if (first !== undefined) {
      run.reject(
        lineNumber,
        `${parsed.record.country} ${parsed.record.companyNumber} already appeared on line ${first}`,
      );
      continue;
    }
    firstLineOf.set(key, lineNumber);
    batch.push({ line: lineNumber, record: parsed.record, hash: recordHash(parsed.record) });
    if (batch.length === batchSize) {
      await flush(batch);
      batch = [];
    }
  }
  if (batch.length > 0 && !failure) await flush(batch);
  await Promise.all(inFlight);
  if (failure) throw failure;
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

function parseLine(text: string): { ok: true; record: CompanyRecord } | { ok: false; reason: string } {
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes > RECORD_LIMITS.bytes) {
    return {
      ok: false,
      reason: `record is ${Math.ceil(bytes / 1024)} KB, more than ${RECORD_LIMITS.bytes / 1024} KB`,
    };
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { ok: false, reason: 'not valid JSON' };
  }
  return parseCompanyRecord(json);
}

/** What one run shares between its batches. */
interface Run {
  id: string;
  batches: number;
  asOf: string;
  derive: Derivation;
  /** One batch at a time (see `oneAtATime`). */
  deriveBatch: BatchDerivation;
  /** A batch's transactional derived writes, one batch at a time. */
  transact: (writes: { additions: Addition[]; setChanges: SetChange[] }) => Promise<void>;
  summary: ImportSummary;
  reject: (line: number, reason: string) => void;
  /** Change ids whose journal is known to be gone: no need to look for it again. */
  settled: Set<string>;
  /** Claims a batch's new contact ids (lib/import/contacts.ts), one batch at a time. */
  claimContacts: ContactClaimer;
  idScheme: () => LegalEntityIdScheme;
}

async function importBatch(batch: Entry[], run: Run): Promise<void> {
  const states = await getCompanyStates(batch.map((e) => e.record));
  const stateOf = (e: Entry) => states.get(companyKey(e.record));

  // Changes of a cut-off earlier run whose derivations may not have run: derive them first.
  const changeIds = new Set([...states.values()].map((s) => s.changeId).filter((id) => !run.settled.has(id)));
  for (const journal of await getJournals([...changeIds])) {
    // Awaited first: `x += await …` reads x before the wait and would lose what other batches added.
    const updates = await resume(journal, run);
    run.summary.updates += updates;
  }
  for (const id of changeIds) run.settled.add(id);

  const changed = batch.filter((e) => stateOf(e)?.hash !== e.hash);
  const unchanged = batch.length - changed.length;
  run.summary.unchanged += unchanged;
  run.summary.imported += unchanged;
  if (changed.length === 0) return;

  const stored = await getCompanyRecords(changed.filter((e) => stateOf(e)).map((e) => e.record));
  const before = (e: Entry) => stored.get(companyKey(e.record))?.record ?? null;
  const accepted = await run.claimContacts(changed, before);
  if (accepted.length === 0) return;

  // Known companies carry their legal entity id; the others claim theirs, the batch's together.
  const known = (e: Entry) => stored.get(companyKey(e.record))?.state.legalEntityId;
  const claimed = await assignLegalEntityIds(
    accepted.filter((e) => !known(e)).map((e) => companyRef(e.record)),
    run.idScheme(),
  );
  const legalEntityIdOf = (e: Entry) => known(e) ?? claimed.get(companyKey(e.record))!;

  const changeId = `${run.id}.${++run.batches}`;
  const journal = await putJournal({
    changeId,
    asOf: run.asOf,
    entries: accepted.map((e) => ({ company: companyRef(e.record), before: before(e) })),
  });
  await putCompanies(
    accepted.map((e) => ({
      record: e.record,
      state: { hash: e.hash, changeId, legalEntityId: legalEntityIdOf(e) },
    })),
  );
  const changes = accepted.map((e) => ({
    before: before(e),
    after: e.record,
    asOf: run.asOf,
    changeId,
    legalEntityId: legalEntityIdOf(e),
  }));
  // Awaited first: `x += await …` reads x before the wait and would lose what other batches added.
  const updates = await deriveAndWrite(changes, run);
  run.summary.updates += updates;
  await releaseContacts(changes.flatMap(givenUpContacts));
  await deleteJournal(journal);
  run.settled.add(changeId);

  run.summary.imported += accepted.length;
  for (const change of changes) {
    if (change.before) run.summary.changed++;
    else run.summary.created++;
  }
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
  await releaseContacts(changes.flatMap(givenUpContacts));
  await deleteJournal(journal);
  return updates;
}

/** Runs a batch's derivations and makes the writes they hand back; answers the number of updates. */
async function deriveAndWrite(changes: CompanyChange[], run: Run): Promise<number> {
  const writes: DerivedWrites = { puts: [], deletes: [] };
  const together = await run.deriveBatch(changes);
  let updates = together.updates;
  collectWrites(writes, together);
  await forEachLimited(changes, DERIVATIONS_IN_FLIGHT, async (change) => {
    const derived = await run.derive(change);
    updates += derived.updates;
    collectWrites(writes, derived);
  });
  await writeDerived(writes, run);
  return updates;
}

/**
 * `work` for one batch at a time: a run's batches in flight share items (a holder is often near the
 * companies it holds in a file; companies of one name share a match-index entry), and one after the
 * other they never race on them, so no conditional write or transaction of one cancels another's.
 * Runs of other imports still may: their races are caught by conditions and retries.
 */
function oneAtATime<T, R>(work: (input: T) => Promise<R>): (input: T) => Promise<R> {
  let last: Promise<unknown> = Promise.resolve();
  return (input) => {
    const next = last.then(() => work(input));
    last = next.catch(() => undefined);
    return next;
  };
}

/**
 * A batch's derived writes, 25 to a request (additions and set changes 100); deletes first, as a key
 * deleted and put is put last, and additions and set changes after puts, as they add to what is there.
 * Additions and set changes are transactions on items other batches may share: one batch's at a time.
 */
async function writeDerived(
  { puts, deletes, additions = [], setChanges = [] }: DerivedWrites,
  run: Run,
): Promise<void> {
  await batchDelete(tableName(), deletes);
  await batchPut(tableName(), puts);
  await run.transact({ additions, setChanges });
}

/** Additions and set changes, in TransactWriteItems (lib/storage/batch.ts). */
async function writeTransactional({
  additions,
  setChanges,
}: {
  additions: Addition[];
  setChanges: SetChange[];
}) {
  await Promise.all([batchAdd(tableName(), additions), batchSetChanges(tableName(), setChanges)]);
}

function givenUpContacts({ before, after }: CompanyChange): number[] {
  const kept = new Set(after.contacts.map((c) => c.contactId));
  return (before?.contacts ?? []).map((c) => c.contactId).filter((id) => !kept.has(id));
}

const companyRef = ({ country, companyNumber }: CompanyRef): CompanyRef => ({ country, companyNumber });
