/**
 * (ext) The import of financial filings (contract §11.4, §11.5): what a filing converter yields
 * (lib/filings/cbso.ts, inpi-ratios.ts), imported by the same run as JSON Lines and registries
 * (lib/import/import.ts `runImport`: batches, journal, derivations, resumption).
 *
 * - **Grouped by company**: a company has many filings, in any order in the files. They are sorted by
 *   company through sorted runs on local disk (lib/filings/filing-runs.ts), so memory stays flat
 *   (§11.5.10) and each company is read, changed and written once per run, never by two batches at once.
 * - **Per company**: its stored record, with the record of filings on its item (lib/filings/store.ts),
 *   is read (one BatchGet per batch), the filings applied (lib/filings/apply.ts), then the record with
 *   its new periods and record of filings goes through the same write path as any change
 *   (lib/import/changes.ts `queueChanges`), one item per company: only its periods and record of
 *   filings change, its other fields, its registry rows, address forms and line fingerprint stay.
 *   The derivations (§8.2: PUBLISHED_FINANCIALS, GROSS_MARGIN_GROWTH, HEALTHDROP; events, webhooks)
 *   follow from the change as for any record.
 * - **Counting** (§11.5.4): `read` counts the filings (CBSO) or rows (ratios); `new` / `changed` /
 *   `unchanged` what each did to its company's periods. Left out on purpose, so not read, and counted
 *   on the `skipped` line: filings of companies not in the data, filings a higher-ranked one supersedes,
 *   and what the converter could not make a period of.
 */
import { companyKey, type CompanyRef } from '../companies/identifiers';
import { RECORD_LIMITS, recordHash } from '../companies/record';
import { getCompanyRecords, type CompanyState } from '../companies/store';
import { queueChanges, type Change } from '../import/changes';
import { runImport, type ImportOptions } from '../import/import';
import { mergeUnit, type RegistrySummary } from '../import/registry-import';
import type { UnitSource } from '../import/sources/unit';
import { applyFilings } from './apply';
import { type Filing, type FilingFormat, type FilingItem } from './filing';
import { FilingRuns } from './filing-runs';
import { filedOf, filedText, getLegacyFiledPeriods } from './store';

export interface FilingImportOptions extends Omit<ImportOptions, 'onRejected'> {
  format: FilingFormat;
  /** Called with each rejected filing's file and line and its reason. */
  onRejected?: (source: UnitSource, reason: string) => void;
  /** Filings held in memory before they are sorted on disk. */
  runSize?: number;
}

/** The `skipped` reasons of the import itself (the converters add theirs). */
export const UNKNOWN_COMPANY = 'unknown company';
export const SUPERSEDED = 'superseded';
export const TOO_MANY_PERIODS = `over ${RECORD_LIMITS.financials} periods`;

/** One company's filings of this run, in the files' order. */
interface CompanyFilings {
  seq: number;
  ref: CompanyRef;
  filings: Filing[];
}

export async function importFilings(
  items: AsyncIterable<FilingItem>,
  options: FilingImportOptions,
): Promise<RegistrySummary> {
  const tally = { read: 0, rejected: 0, created: 0, changed: 0, unchanged: 0, fieldsDropped: 0 };
  const skipped = new Map<string, number>();
  const skip = (reason: string, n = 1) => skipped.set(reason, (skipped.get(reason) ?? 0) + n);
  const runs = new FilingRuns(options.runSize);
  try {
    for await (const item of items) {
      if (item.kind === 'skipped') skip(item.reason);
      else if (item.kind === 'rejected') {
        tally.read++;
        tally.rejected++;
        options.onRejected?.(item.source, item.reason);
      } else {
        tally.read++;
        await runs.add(item.filing);
      }
    }
  } catch (error) {
    await runs.discard();
    throw error;
  }

  const summaryNow = (run: { updates: number; seconds: number }): RegistrySummary => ({
    read: tally.read,
    imported: tally.created + tally.changed + tally.unchanged,
    created: tally.created,
    changed: tally.changed,
    unchanged: tally.unchanged,
    rejected: tally.rejected,
    updates: run.updates,
    seconds: run.seconds,
    skipped,
    fieldsDropped: tally.fieldsDropped,
  });

  const run = await runImport<CompanyFilings>(
    { ...options, onRejected: undefined, onProgress: (s) => options.onProgress?.(summaryNow(s)) },
    async function* read() {
      let group: CompanyFilings | null = null;
      let seq = 0;
      for await (const [key, filing] of runs.sorted()) {
        if (group && companyKey(group.ref) === key) {
          group.filings.push(filing);
          continue;
        }
        if (group) yield group;
        group = {
          seq: ++seq,
          ref: { country: filing.country, companyNumber: filing.companyNumber },
          filings: [filing],
        };
      }
      if (group) yield group;
    },
    async (groups, run, turns) => {
      // Each company is in one group only: no batch waits for another's verdicts.
      turns.judge.end();
      const refs = groups.map((g) => g.ref);
      const stored = await getCompanyRecords(refs);
      // The record of filings is on the company's item; a stage's older `FILINGS` items are read only
      // for companies with periods and no record on their item (store.ts). Without periods, a
      // company's record names nothing (apply.ts): a first load reads nothing more.
      const legacy = await getLegacyFiledPeriods(
        refs.filter((ref) => {
          const company = stored.get(companyKey(ref));
          return company && company.state.filed === undefined && company.record.financials.length > 0;
        }),
      );
      const entries: Change[] = [];
      for (const group of groups) {
        const key = companyKey(group.ref);
        const company = stored.get(key);
        if (!company) {
          // Not in the data: not read (§11.5.4).
          tally.read -= group.filings.length;
          skip(UNKNOWN_COMPANY, group.filings.length);
          continue;
        }
        const before = filedOf(company.state) ?? legacy.get(key) ?? {};
        const applied = applyFilings(company.record.financials, before, group.filings, run.asOf);
        if (applied.financials.length > RECORD_LIMITS.financials) {
          tally.read -= group.filings.length;
          skip(TOO_MANY_PERIODS, group.filings.length);
          continue;
        }
        applied.outcomes.forEach((outcome, i) => {
          if (outcome === 'superseded') {
            tally.read--;
            skip(SUPERSEDED);
            return;
          }
          tally.fieldsDropped += group.filings[i]!.dropped;
          if (outcome === 'new') tally.created++;
          else if (outcome === 'replaced') tally.changed++;
          else tally.unchanged++;
        });
        // A record that says what the stored one says is kept as stored (one in an older form too): the
        // company is not written for its form alone.
        const filed = filedText(applied.filed);
        const storedFiled = company.state.filed;
        const sameRecord = storedFiled !== undefined && filedText(filedOf(company.state)!) === filed;
        const record = mergeUnit(company, {
          ref: group.ref,
          owned: { financials: applied.financials },
          owns: [],
        });
        entries.push({
          line: group.seq,
          record,
          hash: recordHash(record),
          // The company's line fingerprint stays: its source's same line or unit is still unchanged.
          lineHash: company.state.lineHash ?? '',
          source: options.format,
          // With the record changed, the company is written even when its periods are not.
          filed: sameRecord ? storedFiled : filed,
          ...(company.state.addressForms === undefined ? {} : { addressForms: company.state.addressForms }),
        });
      }
      const states = new Map<string, CompanyState>([...stored].map(([key, company]) => [key, company.state]));
      await queueChanges(entries, states, run, turns.claim, stored);
    },
  ).finally(() => runs.discard());
  return summaryNow(run);
}
