/**
 * Who sees a list (contract §7.1): a reader of its own account sees the lists that are shared or that it
 * created; a pending list (a SMART list whose first members are still being written) is seen by no one
 * yet. The reader is a user's e-mail, or null for a reader that is no user (a webhook endpoint created
 * before endpoints recorded their creator: §12 lets it see shared lists only).
 */
import type { StoredList } from './store/model';

export function isListVisibleTo(list: StoredList, accountId: string, reader: string | null): boolean {
  return (
    list.accountId === accountId &&
    !list.pending &&
    (list.shared || (reader !== null && list.createdBy === reader))
  );
}
