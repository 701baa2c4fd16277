/** Lookalikes (contract §6.3): the kept lists, best first, as the import and the job stored them. */
import { answerEach, companyRefFromPath, type BulkCompanyEntry } from '../companies/requested-companies';
import { CompanyNotFound } from '../errors';
import type { PageRequest } from '../http/pagination';
import type { BulkLookalikesItem } from './schemas';
import {
  countLookalikes,
  getLookalikes,
  getLookalikesOf,
  unpackLookalikes,
  type StoredLookalikes,
} from './store';

export async function getCompanyLookalikes(
  path: { countryCode: string; companyNumber: string },
  { limit, offset }: PageRequest,
) {
  const found = await getLookalikes(companyRefFromPath(path));
  if (!found) throw new CompanyNotFound();
  return {
    identifier: found.identifier,
    data: unpackLookalikes(found.packed, offset, offset + limit),
    pagination: { limit, offset, total: countLookalikes(found.packed) },
  };
}

export function getLookalikesInBulk({ companies, limit }: { companies: BulkCompanyEntry[]; limit: number }) {
  return answerEach<StoredLookalikes, BulkLookalikesItem>(companies, getLookalikesOf, {
    found: ({ identifier, packed }) => ({
      identifier,
      data: unpackLookalikes(packed, 0, limit),
      message: null,
    }),
    failed: (identifier, message) => ({ identifier, data: null, message }),
  });
}
