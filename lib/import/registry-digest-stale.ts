/**
 * (ext) What keeps registry digests true (lib/import/registry-digest.ts) when other imports write: a
 * company an import is about to write marks stale the digest of its block for each registry that wrote
 * it before, and — for a company new to the stage — for each other registry keeping digests of its
 * country, whose digest may vouch that the company's number, a withheld name there, is not stored.
 * Whether a registry keeps digests of a country is its mark (`digestsKept`, put before its first
 * digest of the country), read once a run: an import creating companies on a stage without registry
 * digests writes nothing more.
 */
import { randomUUID } from 'node:crypto';
import type { CompanyRef } from '../companies/identifiers';
import { batchGet, batchPut } from '../storage/batch';
import { tableName } from '../storage/client';
import * as keys from '../storage/keys';
import { digestBlock } from './registry-digest-block';
import { REGISTRY_FORMATS } from './sources/index';

/** The mark that `source` keeps digests of `country`'s blocks: its digest key of the block `KEPT` (blocks are digits). */
export const digestsKept = (source: string, country: string) => keys.registryDigest(source, country, 'KEPT');

/** Whether a stored digest item vouches that its block's withheld names are not stored. */
export const vouchesWithheld = (item: Record<string, unknown>) =>
  item['vouchesWithheld'] === true &&
  typeof item['withheld'] === 'object' &&
  item['withheld'] !== null &&
  Object.keys(item['withheld']).length > 0;

/** A company an import is about to write. */
export interface CompanyWrite {
  company: CompanyRef;
  /** The registries that wrote it before, other than the writing source. */
  registries: readonly string[];
  /** The writing source, when the company is new to the stage. */
  createdBy?: string;
}

/**
 * Before an import writes companies: the digest of each such company's block is replaced by an item with
 * a fresh token and no digest (one batch), so the registry's next run reads that block's companies
 * again — for each registry that wrote the company before, and, for a company new to the stage, for each
 * other registry that keeps digests of its country (one of them may hold its number as a withheld name).
 */
export async function markDigestsStale(writes: CompanyWrite[], runId?: string): Promise<void> {
  const stale = new Map<string, Record<string, unknown>>();
  const mark = (source: string, company: CompanyRef) => {
    const key = keys.registryDigest(source, company.country, digestBlock(company));
    stale.set(key.pk, { ...key, entity: 'RegistryDigest', token: randomUUID() });
  };
  const created = writes.filter((w) => w.createdBy !== undefined);
  const keeping =
    created.length > 0
      ? await digestKeepers(
          created.map((w) => w.company.country),
          runId,
        )
      : null;
  for (const { company, registries, createdBy } of writes) {
    for (const source of registries) mark(source, company);
    if (createdBy !== undefined)
      for (const source of keeping!.get(company.country) ?? [])
        if (source !== createdBy && !registries.includes(source)) mark(source, company);
  }
  if (stale.size > 0) await batchPut(tableName(), [...stale.values()]);
}

/** The registries keeping digests of each country, read once a run (one run at a time writes: the import lease). */
let keepers: { runId: string | undefined; byCountry: Map<string, Promise<string[]>> } | undefined;

async function digestKeepers(countries: string[], runId: string | undefined): Promise<Map<string, string[]>> {
  if (!keepers || runId === undefined || keepers.runId !== runId) keepers = { runId, byCountry: new Map() };
  const { byCountry } = keepers;
  const missing = [...new Set(countries)].filter((country) => !byCountry.has(country));
  if (missing.length > 0) {
    const read = batchGet(
      tableName(),
      missing.flatMap((country) => REGISTRY_FORMATS.map((source) => digestsKept(source, country))),
      { consistent: true, projection: ['pk'] },
    ).then((items) => new Set(items.map((item) => item['pk'] as string)));
    for (const country of missing)
      byCountry.set(
        country,
        read.then((found) => REGISTRY_FORMATS.filter((source) => found.has(digestsKept(source, country).pk))),
      );
  }
  const out = new Map<string, string[]>();
  for (const country of new Set(countries)) out.set(country, await byCountry.get(country)!);
  return out;
}
