/**
 * (ext) What a registry's converter may ask of the stage (lib/import/sources/unit.ts `StoredRegistry`),
 * over the table: the registry rows kept with its companies, the links from a registry's sub-entities
 * (KBO establishments) to their company, and the companies a registry wrote. Never on a request path.
 *
 * - rows: one projected BatchGet of the company items per 100 companies (the converter asks 100 at a time);
 * - links: one item each (`keys.registryLink`), written by the import with a unit whose rows changed,
 *   read by one BatchGet per 100 sub-entities;
 * - the companies a registry wrote: its roster (lib/import/registry-roster.ts), one Query per shard of
 *   a few items per block of numbers. On a stage whose roster is not built yet, the first ask fills it
 *   from a parallel Scan of the table in pages, projected to the number, the companies filtered by the
 *   storage (the country's prefix, the source among `sources`, no `stoppedOn`).
 *
 * `storedRegistryByKey` is the same for a worker on AWS (the import engine's split), whose IAM policy
 * names partitions and so cannot hold a Scan (lib/storage/access.ts): there the roster is filled from
 * the country's filter profiles (one per stored company, kept by the import's derivation) read shard
 * by shard, each page's companies read by one projected BatchGet and kept when the source wrote them
 * and they are not stopped.
 */
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import type { Country } from '../companies/identifiers';
import { registryRowsText } from '../companies/store';
import { batchGet, batchPut, queryPage } from '../storage/batch';
import { dynamodb, send, tableName } from '../storage/client';
import * as keys from '../storage/keys';
import { FILTER_PROFILE_SHARDS } from '../storage/keys';
import { rosterCompanies } from './registry-roster';
import type { StoredRegistry } from './sources/unit';

const SCAN_SEGMENTS = 4;

export const storedRegistry: StoredRegistry = {
  async rowsOf(country, companyNumbers) {
    const items = await batchGet(
      tableName(),
      companyNumbers.map((companyNumber) => keys.company({ country, companyNumber })),
      { projection: ['companyNumber', 'registryRows'], consistent: true },
    );
    const rows = new Map<string, unknown>();
    for (const item of items) {
      const text = registryRowsText(item['registryRows']);
      if (text !== null) rows.set(item['companyNumber'] as string, JSON.parse(text) as unknown);
    }
    return rows;
  },

  async linkedTo(source, entities) {
    const items = await batchGet(
      tableName(),
      entities.map((entity) => keys.registryLink(source, entity)),
      { projection: ['subEntity', 'companyNumber'], consistent: true },
    );
    return new Map(items.map((item) => [item['subEntity'] as string, item['companyNumber'] as string]));
  },

  companiesOf: (source, country) => rosterCompanies(source, country, () => scanCompanies(source, country)),
};

/**
 * The older way, for a stage whose roster is not built yet: a parallel Scan of the table, projected to
 * the number, the companies filtered by the storage.
 */
async function* scanCompanies(source: string, country: string): AsyncGenerator<string[]> {
  // The segments are read one page each in turn: pages come out as they arrive, none held beyond one.
  const starts: Array<Record<string, unknown> | undefined | null> = Array.from(
    { length: SCAN_SEGMENTS },
    () => undefined,
  );
  while (starts.some((start) => start !== null)) {
    const pages = await Promise.all(
      starts.map((start, segment) => (start === null ? null : scanPage(source, country, segment, start))),
    );
    for (const [segment, page] of pages.entries()) {
      if (!page) continue;
      starts[segment] = page.next ?? null;
      if (page.numbers.length > 0) yield page.numbers;
    }
  }
}

export const storedRegistryByKey: StoredRegistry = {
  rowsOf: storedRegistry.rowsOf,
  linkedTo: storedRegistry.linkedTo,

  companiesOf: (source, country) =>
    rosterCompanies(source, country, () => profiledCompanies(source, country)),
};

/** The older way by key, for a stage whose roster is not built yet: the filter profiles, then the companies. */
async function* profiledCompanies(source: string, country: string): AsyncGenerator<string[]> {
  for (let shard = 0; shard < FILTER_PROFILE_SHARDS; shard++) {
    let start: Record<string, unknown> | undefined;
    do {
      const page = await queryPage({
        TableName: tableName(),
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': keys.filterProfiles(country, shard) },
        ProjectionExpression: 'sk',
        // At most 100 companies a page: one BatchGet reads them.
        Limit: 100,
        ...(start ? { ExclusiveStartKey: start } : {}),
      });
      start = page.lastKey;
      if (page.items.length === 0) continue;
      const companies = await batchGet(
        tableName(),
        page.items.map((item) =>
          keys.company({ country: country as Country, companyNumber: item['sk'] as string }),
        ),
        { projection: ['companyNumber', 'sources', 'stoppedOn'], consistent: true },
      );
      const numbers = companies
        .filter((item) => item['stoppedOn'] === undefined && sourcesOf(item).includes(source))
        .map((item) => item['companyNumber'] as string);
      if (numbers.length > 0) yield numbers;
    } while (start);
  }
}

/** A company item's `sources` (a string set or a list, as the storage reads it). */
const sourcesOf = (item: Record<string, unknown>): string[] => {
  const sources = item['sources'];
  return sources instanceof Set ? [...(sources as Set<string>)] : Array.isArray(sources) ? sources : [];
};

async function scanPage(
  source: string,
  country: string,
  segment: number,
  start: Record<string, unknown> | undefined,
): Promise<{ numbers: string[]; next?: Record<string, unknown> }> {
  const sample = keys.company({ country: country as 'BE', companyNumber: '' });
  const page = await send(() =>
    dynamodb().send(
      new ScanCommand({
        TableName: tableName(),
        Segment: segment,
        TotalSegments: SCAN_SEGMENTS,
        FilterExpression:
          'begins_with(pk, :prefix) AND sk = :sk AND contains(#sources, :source) AND attribute_not_exists(stoppedOn)',
        ProjectionExpression: 'companyNumber',
        ExpressionAttributeNames: { '#sources': 'sources' },
        ExpressionAttributeValues: { ':prefix': sample.pk, ':sk': sample.sk, ':source': source },
        ExclusiveStartKey: start,
      }),
    ),
  );
  const numbers = (page.Items ?? []).map((item) => item['companyNumber'] as string);
  return page.LastEvaluatedKey ? { numbers, next: page.LastEvaluatedKey } : { numbers };
}

/** Keeps a link from each sub-entity to its company (the latest write wins: a moved establishment follows). */
export async function putRegistryLinks(
  source: string,
  links: Array<{ entity: string; companyNumber: string }>,
): Promise<void> {
  if (links.length === 0) return;
  // One action per item: the last link of an entity in the batch is the one kept.
  const byEntity = new Map(links.map((link) => [link.entity, link.companyNumber]));
  await batchPut(
    tableName(),
    [...byEntity].map(([entity, companyNumber]) => ({
      ...keys.registryLink(source, entity),
      entity: 'RegistryLink',
      subEntity: entity,
      companyNumber,
    })),
  );
}
