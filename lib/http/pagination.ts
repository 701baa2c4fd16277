/** Contract §1.1: a page of an ordered list, with `pagination` echoing what was applied. */
import type { Pagination } from './schemas';

export interface PageRequest {
  limit: number;
  offset: number;
}

export interface Page<T> {
  data: T[];
  pagination: Pagination;
}

/** `total` is the number of items under the same filters; an offset past the end gives `data: []`. */
export function paginate<T>(ordered: T[], { limit, offset }: PageRequest): Page<T> {
  return {
    data: ordered.slice(offset, offset + limit),
    pagination: { limit, offset, total: ordered.length },
  };
}
