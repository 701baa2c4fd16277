/**
 * What a run of the import (lib/import/import.ts) shares between its batches, and how a batch's changed
 * companies are written and derived: contact ids claimed, legal entity ids assigned, the journal, the
 * companies written, their derivations made, the journal removed; a cut-off earlier run's journals
 * derived first. JSON Lines and registry units (lib/import/registry-import.ts) go through the same.
 */
import { companyKey, type CompanyRef } from '../companies/identifiers';
import type { CompanyRecord } from '../companies/record';
import { getCompanyRecords, type CompanyState, type StoredCompany } from '../companies/store';
import { forEachLimited } from '../concurrency';
import { assignLegalEntityIds } from '../legal-entities/assign';
import type { LegalEntityIdScheme } from '../legal-entities/ids';
import { gatheredBy } from '../storage/one-action-per-item';
import type { BatchDerivation, CompanyChange, Derivation, DerivedWrites } from '../derivation/change';
import type { ContactClaimer } from './contacts';
import { GatheredWrites } from './gathered-writes';
import { importLeaseHeld } from './lease';
import type { Entry, Judge } from './lines';
import { markDigestsStale } from './registry-digest';
import { rosterChanges, rosterMayChange, type RosterWrite } from './registry-roster';
import {
  deleteJournal,
  doneRuns,
  getJournals,
  putCompanies,
  putJournal,
  runOf,
  type Journal,
  type StoredJournal,
} from './store';
import type { Turn } from './turns';

export interface ImportSummary {
  /** Non-blank lines read (a registry: its units considered, §11.5.4). */
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
export interface Run {
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
  changes: Array<Change & Claimed>;
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

/**
 * A change to write: a valid record of a company, with what the import keeps beside it. A registry
 * unit's also carries its registry rows and source (lib/import/registry-import.ts).
 */
export interface Change extends Entry {
  /** Who wrote it (`jsonl`, `kbo`, `sirene`): §8.2 derives no registry change on a source's first write. */
  source?: string;
  /** The registry rows kept with the company (opaque JSON text); absent: the stored ones stay. */
  registryRows?: string;
  /** The registered address in each language the registry gives it (JSON text); absent: unknown. */
  addressForms?: string;
  /** (ext) The record of filings kept with the company (opaque JSON text); absent: the stored one stays. */
  filed?: string;
}

/** A change whose contacts are claimed: the company as stored before it (absent when new). */
interface Claimed {
  stored: StoredCompany | undefined;
  before: CompanyRecord | null;
}

/**
 * A batch's judged entries against their companies' states: changes of a cut-off earlier run derived
 * first, the unchanged counted, the changed companies' contacts claimed in the batch's `claim` turn
 * (file order: lib/import/contacts.ts), then queued to be written a full batch at a time.
 */
export async function queueChanges(
  batch: Change[],
  states: Map<string, CompanyState>,
  run: Run,
  claimTurn: Turn,
  /** The changed companies as stored, when the caller read them already (else read here). */
  storedAlready?: Map<string, StoredCompany>,
): Promise<void> {
  const stateOf = (e: Entry) => states.get(companyKey(e.record));

  // Changes of a cut-off earlier run whose derivations may not have run: derive them first.
  const changeIds = new Set([...states.values()].map((s) => s.changeId).filter((id) => !run.settled.has(id)));
  for (const journal of await getJournals(await mayHaveJournals([...changeIds], run))) {
    // Awaited first: `x += await …` reads x before the wait and would lose what other batches added.
    const updates = await resume(journal, run);
    run.summary.updates += updates;
  }
  for (const id of changeIds) run.settled.add(id);

  const changed = batch.filter(
    (e) =>
      stateOf(e)?.hash !== e.hash ||
      (e.registryRows !== undefined && stateOf(e)?.registryRows !== e.registryRows) ||
      (e.addressForms !== undefined && stateOf(e)?.addressForms !== e.addressForms) ||
      (e.filed !== undefined && stateOf(e)?.filed !== e.filed),
  );
  const unchanged = batch.length - changed.length;
  run.summary.unchanged += unchanged;
  run.summary.imported += unchanged;
  const stored =
    storedAlready ?? (await getCompanyRecords(changed.filter((e) => stateOf(e)).map((e) => e.record)));
  const claimants = changed.map((e) => {
    const found = stored.get(companyKey(e.record));
    return { ...e, stored: found, before: found?.record ?? null };
  });
  await claimTurn.ready;
  try {
    const accepted = await gatheredBy('the contact claims', () =>
      run.claimContacts(claimants, (company) => run.written.get(companyKey(company))),
    );
    for (const e of accepted) run.written.set(companyKey(e.record), e.record);
    // Changes are written a full batch at a time, whichever batches of lines they came from: a
    // refresh in which few companies changed journals and writes a hundred changes at once, not a few.
    run.changes.push(...accepted);
  } finally {
    claimTurn.end();
  }
  while (run.changes.length >= run.batchSize) await writeChanges(run.changes.splice(0, run.batchSize), run);
}

/**
 * A batch of changed companies, their contacts claimed: legal entity ids assigned, the batch's
 * journal, the companies written, their derivations made, then the journal removed.
 */
export async function writeChanges(accepted: Array<Change & Claimed>, run: Run): Promise<void> {
  const before = (e: Claimed) => e.before;
  // Known companies carry their legal entity id; the others claim theirs, the batch's together.
  const known = (e: Claimed) => e.stored?.state.legalEntityId;
  const claimed = await gatheredBy('the legal entity ids', () =>
    assignLegalEntityIds(
      accepted.filter((e) => !known(e)).map((e) => companyRef(e.record)),
      run.idScheme(),
    ),
  );
  const legalEntityIdOf = (e: Change & Claimed) => known(e) ?? claimed.get(companyKey(e.record))!;

  // Who wrote each company so far: a source's first write derives no registry change (§8.2).
  const state = (e: Claimed) => e.stored?.state;
  const sourcesOf = (e: Change & Claimed) => [
    ...new Set([...storedSources(state(e)), e.source ?? JSON_LINES]),
  ];
  const firstBySource = (e: Change & Claimed) =>
    before(e) !== null && !storedSources(state(e)).includes(e.source ?? JSON_LINES);

  const changeId = `${run.id}.${++run.batches}`;
  // The fence: a run that lost the import lease writes nothing more (lib/import/lease.ts).
  await importLeaseHeld();
  const journal = await putJournal({
    changeId,
    asOf: run.asOf,
    entries: accepted.map((e) => ({
      company: companyRef(e.record),
      before: before(e),
      ...(firstBySource(e) ? { firstBySource: true } : {}),
      ...(state(e)?.addressForms === undefined ? {} : { addressFormsBefore: state(e)!.addressForms }),
    })),
  });
  // A registry's digest of a block no longer vouches for a company another source writes (first), nor
  // for the withheld names of a block in which another source creates a company.
  await markDigestsStale(
    accepted.map((e) => ({
      company: e.record,
      registries: storedSources(state(e)).filter((s) => s !== JSON_LINES && s !== (e.source ?? JSON_LINES)),
      ...(before(e) === null ? { createdBy: e.source ?? JSON_LINES } : {}),
    })),
    run.id,
  );
  await gatheredBy('the companies', () =>
    putCompanies(
      accepted.map((e) => {
        const registryRows = e.registryRows ?? state(e)?.registryRows;
        const filed = e.filed ?? state(e)?.filed;
        // Forms are the registry's view of the address: a write that brings none (JSON Lines) drops them.
        const { addressForms } = e;
        const sources = sourcesOf(e);
        return {
          record: e.record,
          state: {
            hash: e.hash,
            changeId,
            legalEntityId: legalEntityIdOf(e),
            lineHash: e.lineHash,
            ...(registryRows === undefined ? {} : { registryRows }),
            ...(addressForms === undefined ? {} : { addressForms }),
            ...(filed === undefined ? {} : { filed }),
            ...(sources.length === 1 && sources[0] === JSON_LINES ? {} : { sources }),
          },
        };
      }),
    ),
  );
  // Stored now: later lines' claims read them from the table.
  for (const e of accepted) run.written.delete(companyKey(e.record));
  const changes = accepted.map((e) => ({
    before: before(e),
    after: e.record,
    asOf: run.asOf,
    changeId,
    legalEntityId: legalEntityIdOf(e),
    ...(firstBySource(e) ? { firstBySource: true } : {}),
    ...formsOf(state(e)?.addressForms, e.addressForms),
  }));
  // Awaited first: `x += await …` reads x before the wait and would lose what other batches added.
  const updates = await deriveAndWrite(
    changes,
    run,
    accepted
      .filter((e) => rosterMayChange(e.source ?? JSON_LINES, before(e), e.record))
      .map((e) => ({ company: e.record, sources: sourcesOf(e), live: !e.record.stoppedOn })),
  );
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
  const rosters: RosterWrite[] = [];
  for (const entry of journal.entries) {
    const now = current.get(companyKey(entry.company));
    // Written by this change (a later change would name its own journal): derive it.
    if (now?.state.changeId !== journal.changeId) continue;
    rosters.push({ company: now.record, sources: storedSources(now.state), live: !now.record.stoppedOn });
    changes.push({
      before: entry.before,
      after: now.record,
      asOf: journal.asOf,
      changeId: journal.changeId,
      ...(now.state.legalEntityId ? { legalEntityId: now.state.legalEntityId } : {}),
      ...(entry.firstBySource ? { firstBySource: true } : {}),
      ...formsOf(entry.addressFormsBefore, now.state.addressForms),
    });
  }
  const updates = await deriveAndWrite(changes, run, rosters);
  await deleteJournal(journal);
  return updates;
}

/**
 * Runs a batch's derivations and makes the writes they hand back, with the batch's registry roster
 * changes (lib/import/registry-roster.ts); answers the number of updates.
 */
export async function deriveAndWrite(
  changes: CompanyChange[],
  run: Run,
  rosters: RosterWrite[] = [],
): Promise<number> {
  const writes = new GatheredWrites();
  writes.add('the registry rosters', { puts: [], deletes: [], setChanges: rosterChanges(rosters) });
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

/** The source of JSON Lines records; a company stored without `sources` was written by it alone. */
const JSON_LINES = 'jsonl';

/** A change's address forms, when either side has them. */
const formsOf = (before: string | undefined, after: string | undefined) =>
  before === undefined && after === undefined
    ? {}
    : {
        addressForms: {
          ...(before === undefined ? {} : { before }),
          ...(after === undefined ? {} : { after }),
        },
      };

/** The sources that wrote a stored company (none for a new one). */
const storedSources = (state: CompanyState | undefined): string[] =>
  state ? (state.sources ?? [JSON_LINES]) : [];
