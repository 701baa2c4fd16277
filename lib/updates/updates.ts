/**
 * Updates of legal entities (contract §8.1): a legal entity's feed, newest first, its titles in the
 * caller's language.
 *
 * Round trips: a legal entity id is resolved to its company (the Legal entity item), then the company's
 * feed and relationships item (name, `isPrimary`) are read together:
 * - one entity: GetItem, then two BatchGetItem of one key in parallel → 2 rounds;
 * - 100 entities: one BatchGetItem of their ids, then one of their feeds and one of their relationships
 *   items in parallel → 2 rounds (3 requests), whatever `limit` and `offset`.
 */
import { companyKey, type CompanyRef } from '../companies/identifiers';
import { getRelationshipsOf } from '../companies/holdings-store';
import { InvalidInput, LEGAL_ENTITY_NOT_FOUND, LegalEntityNotFound } from '../errors';
import type { Language } from '../http/language';
import { paginate, type Page, type PageRequest } from '../http/pagination';
import { isLegalEntityId } from '../legal-entities/ids';
import { ownLegalEntity } from '../legal-entities/legal-entities';
import type { LegalEntity } from '../legal-entities/schemas';
import { getLegalEntityCompanies, getLegalEntityCompany } from '../legal-entities/store';
import { byTimeThenId, type Update } from './derive';
import { BULK_UPDATES, type BulkUpdatesItem, type UpdateAnswer } from './schemas';
import { getFeeds } from './store';
import { titleOf } from './titles';

interface Feed {
  entity: LegalEntity;
  /** In the contract's order. */
  updates: Update[];
}

export async function getLegalEntityUpdates(legalEntityId: string, page: PageRequest, language: Language) {
  const company = isLegalEntityId(legalEntityId) ? await getLegalEntityCompany(legalEntityId) : null;
  const feed = company && (await feedsOf(new Map([[legalEntityId, company]]))).get(legalEntityId);
  if (!feed) throw new LegalEntityNotFound();
  const { data, pagination } = pageOf(feed, page, language);
  return { identifier: feed.entity, data: { updates: data }, pagination };
}

export async function getUpdatesInBulk(
  request: { legalEntities: Array<{ legalEntityId: string }>; limit: number; offset: number },
  language: Language,
): Promise<BulkUpdatesItem[]> {
  const { legalEntities, limit, offset } = request;
  if (legalEntities.length * limit > BULK_UPDATES.updates) {
    const most = Math.floor(BULK_UPDATES.updates / legalEntities.length);
    throw InvalidInput.field(
      `legalEntities × limit must be at most ${BULK_UPDATES.updates} (${legalEntities.length} × ${limit} = ${legalEntities.length * limit})`,
      'limit',
      `must be ≤ ${most} for ${legalEntities.length} legal entities`,
    );
  }
  const ids = legalEntities.map((e) => e.legalEntityId);
  const valid = [...new Set(ids.filter(isLegalEntityId))];
  const companies = valid.length > 0 ? await getLegalEntityCompanies(valid) : new Map<string, CompanyRef>();
  const feeds = companies.size > 0 ? await feedsOf(companies) : new Map<string, Feed>();
  return ids.map((legalEntityId): BulkUpdatesItem => {
    const feed = feeds.get(legalEntityId);
    if (!feed) {
      return { identifier: { legalEntityId }, data: null, pagination: null, message: LEGAL_ENTITY_NOT_FOUND };
    }
    const { data, pagination } = pageOf(feed, { limit, offset }, language);
    return { identifier: feed.entity, data: { updates: data }, pagination, message: null };
  });
}

/**
 * The feeds of legal entities whose companies are known, keyed by legal entity id. An entity whose
 * company has no relationships item yet (its import's derivations have not run) is not there.
 */
async function feedsOf(companies: Map<string, CompanyRef>): Promise<Map<string, Feed>> {
  const refs = [...companies.values()];
  const [relationships, updates] = await Promise.all([getRelationshipsOf(refs), getFeeds(refs)]);
  const feeds = new Map<string, Feed>();
  for (const [legalEntityId, company] of companies) {
    const stored = relationships.get(companyKey(company));
    if (!stored || stored.legalEntityId !== legalEntityId) continue;
    const found = updates.get(companyKey(company)) ?? [];
    feeds.set(legalEntityId, { entity: ownLegalEntity(stored), updates: found.sort(byTimeThenId) });
  }
  return feeds;
}

/** One page of a feed, only its updates put in words. */
function pageOf(feed: Feed, page: PageRequest, language: Language): Page<UpdateAnswer> {
  const { data, pagination } = paginate(feed.updates, page);
  return { data: data.map((update) => toAnswer(update, language)), pagination };
}

/** An update on the wire (contract §8.1), in the contract's key order. Derived updates have no source. */
function toAnswer(update: Update, language: Language): UpdateAnswer {
  return {
    id: update.id,
    type: update.type,
    title: titleOf(update, language),
    time: update.time,
    sourceUrl: null,
    sourceType: null,
    status: 'ACTIVE',
  };
}
