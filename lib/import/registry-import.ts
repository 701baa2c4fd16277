/**
 * (ext) The import of a registry's units (contract §11.3, §11.5): what a converter under
 * lib/import/sources/ yields, imported by the same run as JSON Lines (lib/import/import.ts `runImport`:
 * batches, journal, derivations, resumption), with the merge of §11.5.1 in place of a whole snapshot.
 *
 * - **Validation per unit**: its owned fields are checked by the record's own rules
 *   (lib/companies/record.ts). Only an invalid company number or a missing name rejects it
 *   (`FILE line N: reason`); any other owned field the rules refuse is left empty and counted as a
 *   field dropped, as are the fields the converter could not read (§11.5.5).
 * - **Merge**: a field the unit owns is set from it, empty when it has no value; every other field and
 *   the financials, shareholders and contacts keep what is stored (a new company: empty). Other names
 *   are kept as §6.5 says (never the registered name, no repeats). The unit's registry rows are kept
 *   with the company, opaque, for later updates (§11.5.2).
 * - **Idempotent, cheap when unchanged**: a unit's fingerprint (its owned fields, as validated, and its
 *   rows) is stored as the company's line fingerprint; the same unit again is unchanged after the one
 *   projected read of its state (none in a block whose digest matches, lib/import/registry-digest.ts).
 *   Another source's write of the company leaves another fingerprint and makes its block's digest
 *   stale, so the next unit reads the record and merges it again.
 * - **Links** (§11.5.2): a unit whose fingerprint changed has a link kept from each of its sub-entities
 *   (a KBO establishment) to it, written before the company, so that an update naming only the
 *   sub-entity finds it (lib/import/registry-store.ts).
 * - **Counting** (§11.5.4): `read` counts the units and the rejected ones; units left out on purpose are
 *   not read, they are counted by reason for the `skipped` line.
 * - **Withheld names** (§11.5.6): a unit whose registry withholds its name erases its stored company
 *   (lib/import/erase.ts) and counts as read and changed; of a number not stored it is skipped.
 * - **Repeats**: a registry's files are grouped by entity number and a converter yields one unit per
 *   entity, so a unit that names the same company as the unit before it is rejected as a repeat; the
 *   check keeps one company, not one per company read, so memory stays flat (§11.5.10).
 */
import { companyKey, type CompanyRef } from '../companies/identifiers';
import { otherNamesOf, recordHash, type Address, type CompanyRecord } from '../companies/record';
import {
  getCompanyRecords,
  getCompanyStates,
  type CompanyState,
  type StoredCompany,
} from '../companies/store';
import { queueChanges, type Change, type ImportSummary, type Run } from './changes';
import { markDigestsStale, RegistryDigests } from './registry-digest';
import { runImport, type BatchTurns, type ImportOptions } from './import';
import { canonicalRef, eraseCompanies, emptyRecord, resumeErasures } from './erase';
import { putRegistryLinks } from './registry-store';
import { readUnit, type ReadUnit } from './registry-unit';
import { NAME_WITHHELD, type ReadItems, type UnitSource } from './sources/unit';

export interface RegistryImportOptions extends Omit<ImportOptions, 'onRejected'> {
  /** The source's name as the company remembers who wrote it (`kbo`, `sirene`). */
  source: string;
  /** Called with each rejected unit's file and line (the CSV's own) and its reason. */
  onRejected?: (source: UnitSource, reason: string) => void;
  /**
   * `--active-only` (§11.5.6): a ceased unit (one with `stoppedOn`) that is not stored yet is left out,
   * counted as skipped `ceased`; a stored one is still imported, and so stopped.
   */
  activeOnly?: boolean;
}

/** A unit whose name is withheld owns nothing: it erases its company, if stored. */
const WITHHELD_UNIT = { owned: {}, owns: [], fingerprint: '', erase: true } as const;

/**
 * Companies to a batch. A registry's units come in number order, many to a block, and a batch's
 * derivations move the items its companies share (the smart-filter counts per NACE division and
 * place, the lookalike floors, the rosters) once per batch: 500 to a batch writes about a seventh fewer
 * transaction items per company than JSON Lines' 100 (docs/benchmarks.md, Registry files).
 */
const REGISTRY_BATCH_SIZE = 500;

/** The `skipped` reason of a ceased unit left out by `activeOnly`. */
export const CEASED = 'ceased';

export interface RegistrySummary extends ImportSummary {
  /** Units left out on purpose, by reason (the `skipped` line). */
  skipped: Map<string, number>;
  /** Fields present in the files that could not be read, left empty. */
  fieldsDropped: number;
}

export async function importRegistryItems(
  items: ReadItems,
  options: RegistryImportOptions,
): Promise<RegistrySummary> {
  const skipped = new Map<string, number>();
  let fieldsDropped = 0;
  // Rejections by the run (a repeat) name the unit by its sequence number: its source is kept per batch.
  const sources = new Map<number, UnitSource>();
  const reject = (source: UnitSource, reason: string) => options.onRejected?.(source, reason);
  let last: { key: string; source: UnitSource } | null = null;
  const importOptions: ImportOptions = {
    ...options,
    batchSize: options.batchSize ?? REGISTRY_BATCH_SIZE,
    onRejected: undefined,
  };

  // A block of units whose registry digest matches is unchanged without reading its companies.
  const digests = new RegistryDigests(options.source);
  const activeOnly = options.activeOnly ?? false;
  const summary = await runImport<ReadUnit>(
    importOptions,
    async function* read(summary) {
      // Units are judged (validated, fingerprinted) only in blocks whose digest does not match.
      for await (const round of digests.check(items, activeOnly)) {
        summary.read += round.unchanged;
        summary.unchanged += round.unchanged;
        summary.imported += round.unchanged;
        for (const { item, seq } of round.items) {
          const withheld =
            item.kind === 'skipped' && item.reason === NAME_WITHHELD ? canonicalRef(item.company) : null;
          if (withheld && item.kind === 'skipped') {
            // Read as a unit: a stored company is erased by it, else it is skipped after all (`importUnits`).
            summary.read++;
            sources.set(seq, item.source);
            yield { seq, source: item.source, ref: withheld, ...WITHHELD_UNIT };
            continue;
          }
          if (item.kind === 'skipped') {
            skipped.set(item.reason, (skipped.get(item.reason) ?? 0) + 1);
            continue;
          }
          summary.read++;
          if (item.kind === 'rejected') {
            summary.rejected++;
            reject(item.source, item.reason);
            continue;
          }
          const judged = readUnit(item.unit, seq);
          fieldsDropped += judged.dropped;
          digests.judged(seq, judged.ok ? judged.dropped : null);
          if (!judged.ok) {
            summary.rejected++;
            reject(item.unit.source, judged.reason);
            continue;
          }
          sources.set(judged.unit.seq, item.unit.source);
          yield judged.unit;
        }
      }
    },
    async (batch, run, turns) => {
      const first = batch[0]!.seq;
      digests.batchStarted(run.id, first, batch[batch.length - 1]!.seq);
      try {
        await importUnits(batch, run, turns, {
          last: () => last,
          setLast: (next) => (last = next),
          source: options.source,
          activeOnly,
          skip: (reason) => skipped.set(reason, (skipped.get(reason) ?? 0) + 1),
        });
      } finally {
        for (const unit of batch) sources.delete(unit.seq);
      }
      await digests.batchDone(first);
    },
    (seq, reason) => {
      digests.rejected(seq);
      reject(sources.get(seq) ?? { file: '?', line: 0 }, reason);
    },
  );
  await digests.finish();
  // The fields dropped in blocks whose digest matched, as counted when they were judged.
  return { ...summary, skipped, fieldsDropped: fieldsDropped + digests.matchedDropped };
}

/** `skipped N (reason: n, …)`, or null when nothing was skipped or dropped (§11.5.4). */
export function formatSkipped({
  skipped,
  fieldsDropped,
}: Pick<RegistrySummary, 'skipped' | 'fieldsDropped'>): string | null {
  const total = [...skipped.values()].reduce((a, b) => a + b, 0);
  const parts = [...skipped].map(([reason, n]) => `${reason}: ${n}`);
  if (fieldsDropped > 0) parts.push(`fields dropped: ${fieldsDropped}`);
  return parts.length === 0 ? null : `skipped ${total} (${parts.join(', ')})`;
}

/** What the batches of one run of units share. */
interface UnitsContext {
  /** The unit judged last (file order), to spot a repeat. */
  last: () => { key: string; source: UnitSource } | null;
  setLast: (unit: { key: string; source: UnitSource }) => void;
  source: string;
  activeOnly: boolean;
  skip: (reason: string) => void;
}

/**
 * One batch of units: their states read (one projected BatchGet), judged in file order (a repeat of
 * the unit before is rejected; the same unit as last written is unchanged), the others merged into
 * their stored records (one BatchGet of the whole items) and queued like any changed line.
 */
async function importUnits(
  units: ReadUnit[],
  run: Run,
  turns: BatchTurns,
  context: UnitsContext,
): Promise<void> {
  const { source } = context;
  let fresh: ReadUnit[];
  let states: Map<string, CompanyState>;
  // Withheld names (§11.5.6): stored companies to erase, and the numbers not stored.
  const erasing: CompanyRef[] = [];
  const notStored: CompanyRef[] = [];
  try {
    states = await getCompanyStates(units.map((u) => u.ref));
    await turns.judge.ready;
    fresh = [];
    for (const unit of units) {
      const key = companyKey(unit.ref);
      const previous = context.last();
      if (previous?.key === key) {
        run.reject(
          unit.seq,
          `${unit.ref.country} ${unit.ref.companyNumber} already appeared on ${previous.source.file} line ${previous.source.line}`,
        );
        continue;
      }
      context.setLast({ key, source: unit.source });
      const known = states.has(key);
      if (unit.erase && !known) notStored.push(unit.ref);
      const leftOut = known
        ? null
        : unit.erase
          ? NAME_WITHHELD
          : context.activeOnly && unit.owned.stoppedOn && CEASED;
      if (leftOut) {
        // Left out on purpose: not read (§11.5.4).
        run.summary.read--;
        context.skip(leftOut);
      } else if (unit.erase) erasing.push(unit.ref);
      else if (states.get(key)?.lineHash === unit.fingerprint) run.judge.unchanged();
      else fresh.push(unit);
    }
  } finally {
    void turns.judge.ready.then(turns.judge.end);
  }
  // The block's digest no longer vouches for an erased company: the name published again is read anew.
  await markDigestsStale(erasing.map((company) => ({ company, registries: [context.source] })));
  await eraseCompanies(erasing, run);
  await resumeErasures(notStored, run);
  const stored = await getCompanyRecords(
    fresh.filter((u) => states.has(companyKey(u.ref))).map((u) => u.ref),
  );
  // Links first: a run cut off after them finds its units again; one that left before them never writes them.
  await putRegistryLinks(
    source,
    fresh.flatMap((u) => (u.links ?? []).map((entity) => ({ entity, companyNumber: u.ref.companyNumber }))),
  );
  const entries: Change[] = [];
  for (const unit of fresh) {
    const record = mergeUnit(stored.get(companyKey(unit.ref)) ?? null, unit);
    // A unit that does not bring the name of a company not stored yet names nobody.
    if (record.name === '') {
      run.reject(unit.seq, 'name is required');
      continue;
    }
    entries.push({
      line: unit.seq,
      record,
      hash: recordHash(record),
      lineHash: unit.fingerprint,
      source,
      ...(unit.registryRows === undefined ? {} : { registryRows: unit.registryRows }),
      ...(unit.addressForms === undefined ? {} : { addressForms: unit.addressForms }),
    });
  }
  // Every unit's state (a cut-off run's journal is looked for behind the unchanged ones too), the
  // merged ones' whole: their registry rows are compared as well.
  for (const [key, company] of stored) states.set(key, company.state);
  await queueChanges(entries, states, run, turns.claim, stored);
}

/** §11.5.1: the unit's owned fields over what is stored (a new company: empty sections). */
export function mergeUnit(
  stored: StoredCompany | null,
  unit: Pick<ReadUnit, 'ref' | 'owned' | 'owns'>,
): CompanyRecord {
  const base: CompanyRecord = stored?.record ?? emptyRecord(unit.ref);
  const merged: CompanyRecord = {
    ...base,
    ...unit.owned,
    country: unit.ref.country,
    companyNumber: unit.ref.companyNumber,
  };
  merged.otherNames = otherNamesOf(merged.name, merged.otherNames);
  // A stored address comes back from DynamoDB's map in no particular key order: the record's order.
  if (merged.address) merged.address = addressInOrder(merged.address);
  // Key order as the record's parser gives it, so that equal data hashes alike whichever way it came.
  return canonicalOrder(merged);
}

function addressInOrder({ street, number, box, postalCode, place, country }: Address): Address {
  return { street, number, box, postalCode, place, ...(country === undefined ? {} : { country }) };
}

function canonicalOrder(r: CompanyRecord): CompanyRecord {
  return {
    country: r.country,
    companyNumber: r.companyNumber,
    name: r.name,
    place: r.place,
    vatNumber: r.vatNumber,
    website: r.website,
    legalForm: r.legalForm,
    foundedOn: r.foundedOn,
    stoppedOn: r.stoppedOn,
    address: r.address,
    otherNames: r.otherNames,
    activities: r.activities,
    financials: r.financials,
    shareholders: r.shareholders,
    contacts: r.contacts,
  };
}
