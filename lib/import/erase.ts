/**
 * (ext) Erasure (contract §11.5.6): a stored company whose registry now withholds its name (a SIRENE
 * unit whose name is `[ND]`, a KBO natural person whose name the extract no longer gives) is erased.
 * Nothing personal of it stays stored, and it answers as a number never imported: 404 on every company
 * endpoint, the bulk calls' `Company not found`, `Legal entity not found` for its updates; search and
 * match no longer find it, it is nobody's lookalike, parent or child, and it is in no list.
 *
 * What goes is the whole company item — every field of the record (name, other names, address, place,
 * website, VAT number, legal form, dates, activities), its financials, shareholders and contacts, and
 * the registry rows kept with it — and everything derived from it: one change through the import's
 * derivation point whose new state is `gone` (lib/derivation/change.ts), so each derivation removes
 * what it derived (holdings and legal entities, search words, match-index entries, lookalike features
 * and list, filter profile, update feed, list memberships with their counters). What stays is not
 * personal: the legal entity id's claim (number → id, so the company keeps its id should it come back),
 * the links from its KBO establishments to its number, and a mark of the erasure (`keys.companyErased`:
 * the change that erased it). A later file that gives the name again imports it as a new company.
 *
 * The erasure is written like any change: its journal (the records before) first, then the mark and
 * the company items' deletes, then the derivations, then the journal goes. A run cut off after the
 * deletes leaves the journal; the next run that meets the company's withheld name again finds it
 * through the mark and derives what is missing (`resumeErasures`). Idempotent: a company erased already
 * is not stored, so its unit is skipped as any withheld name of a company not stored (§11.5.4).
 */
import { companyKey, parseCompanyNumber, type CompanyRef } from '../companies/identifiers';
import type { CompanyRecord } from '../companies/record';
import { getCompanyRecords, getCompanyStates, type StoredCompany } from '../companies/store';
import type { CompanyChange } from '../derivation/change';
import { batchDelete, batchGet, batchPut } from '../storage/batch';
import { tableName } from '../storage/client';
import * as keys from '../storage/keys';
import { deriveAndWrite, type Run } from './changes';
import type { RosterWrite } from './registry-roster';
import { deleteJournal, getJournals, putJournal } from './store';

/** A company with nothing known but its number and country: one erased, or a new one before a unit is merged in. */
export function emptyRecord({ country, companyNumber }: CompanyRef): CompanyRecord {
  return {
    country,
    companyNumber,
    name: '',
    place: null,
    vatNumber: null,
    website: null,
    legalForm: null,
    foundedOn: null,
    stoppedOn: null,
    address: null,
    otherNames: [],
    activities: [],
    financials: [],
    shareholders: [],
    contacts: [],
  };
}

/**
 * Erases these stored companies (one journal, as one batch of the run) and derives their going; each
 * counts as imported and changed (§11.5.4: what is stored of it changed). Answers how many were.
 */
export async function eraseCompanies(refs: CompanyRef[], run: Run): Promise<number> {
  const stored = [...(await getCompanyRecords(refs)).values()];
  if (stored.length === 0) return 0;
  const changeId = `${run.id}.${++run.batches}`;
  const journal = await putJournal({
    changeId,
    asOf: run.asOf,
    entries: stored.map(({ record }) => ({ company: refOf(record), before: record, gone: true })),
  });
  // The mark first: a run cut off after the deletes finds the journal again through it.
  await batchPut(
    tableName(),
    stored.map(({ record }) => ({ ...keys.companyErased(record), entity: 'CompanyErased', changeId })),
  );
  await batchDelete(
    tableName(),
    stored.map(({ record }) => keys.company(record)),
  );
  // Awaited first: `x += await …` reads x before the wait and would lose what other batches added.
  const updates = await deriveAndWrite(
    stored.map(goneChange(run.asOf, changeId)),
    run,
    stored.map(erasedFromRosters),
  );
  run.summary.updates += updates;
  await deleteJournal(journal);
  run.settled.add(changeId);
  run.summary.imported += stored.length;
  run.summary.changed += stored.length;
  return stored.length;
}

/**
 * Companies whose withheld name was met while they are not stored: an erasure of theirs that a cut-off
 * run left underived (its journal still there, the company still gone) is derived now.
 */
export async function resumeErasures(refs: CompanyRef[], run: Run): Promise<void> {
  if (refs.length === 0) return;
  const marks = await batchGet(tableName(), refs.map(keys.companyErased), {
    projection: ['changeId'],
    consistent: true,
  });
  const changeIds = [...new Set(marks.map((m) => m['changeId'] as string))].filter(
    (id) => !run.settled.has(id),
  );
  for (const journal of await getJournals(changeIds)) {
    const entries = journal.entries.filter((e) => e.gone && e.before);
    const companies = entries.map((e) => e.company);
    const [present, erased] = await Promise.all([
      getCompanyStates(companies),
      batchGet(tableName(), companies.map(keys.companyErased), {
        projection: ['pk', 'changeId'],
        consistent: true,
      }),
    ]);
    const erasedHere = new Set(
      erased.filter((m) => m['changeId'] === journal.changeId).map((m) => m['pk'] as string),
    );
    // Still gone, and by this change (a later import of it would have written its own).
    const pending = entries.filter(
      (e) => !present.has(companyKey(e.company)) && erasedHere.has(keys.companyErased(e.company).pk),
    );
    const updates = await deriveAndWrite(
      pending.map((e) => goneChange(journal.asOf, journal.changeId)({ record: e.before! })),
      run,
      pending.map((e) => erasedFromRosters({ record: e.before! })),
    );
    run.summary.updates += updates;
    await deleteJournal(journal);
  }
  for (const id of changeIds) run.settled.add(id);
}

const goneChange =
  (asOf: string, changeId: string) =>
  ({
    record,
    state,
  }: Pick<StoredCompany, 'record'> & Partial<Pick<StoredCompany, 'state'>>): CompanyChange => ({
    before: record,
    after: emptyRecord(record),
    asOf,
    changeId,
    ...(state?.legalEntityId ? { legalEntityId: state.legalEntityId } : {}),
    gone: true,
  });

/** An erased company leaves every registry's roster (lib/import/registry-roster.ts). */
const erasedFromRosters = ({ record }: Pick<StoredCompany, 'record'>): RosterWrite => ({
  company: refOf(record),
  sources: [],
  live: false,
  erased: true,
});

/** The company a converter names (any input form of §3), canonical; null when none or not valid. */
export function canonicalRef(ref: CompanyRef | undefined): CompanyRef | null {
  const canonical = ref && parseCompanyNumber(ref.country, ref.companyNumber);
  return canonical ? { country: ref.country, companyNumber: canonical } : null;
}

const refOf = ({ country, companyNumber }: CompanyRef): CompanyRef => ({ country, companyNumber });
