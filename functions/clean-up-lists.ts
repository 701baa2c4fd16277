/**
 * Background worker (scheduled in the stack): deletes the members and order items of deleted lists
 * (contract §7.6). The local stage runs the same `cleanUpDeletedLists` in-process.
 */
import { cleanUpDeletedLists, cleanUpListsStorage } from '../lib/lists/store/clean-up';
import { withDeclaredAccess } from '../lib/storage/access';

export const handler = async (): Promise<{ cleaned: number }> => {
  const cleaned = await withDeclaredAccess(cleanUpListsStorage, cleanUpDeletedLists);
  if (cleaned > 0) console.log(JSON.stringify({ level: 'INFO', message: 'lists cleaned up', cleaned }));
  return { cleaned };
};
