/**
 * Background worker (scheduled in the stack): evaluates the rest of the smart lists whose filter matched
 * more than one request evaluates (contract §7.6). The local stage runs the same code in-process.
 */
import { evaluateDeferredSmartLists, evaluateSmartListsStorage } from '../lib/lists/smart-background';
import { withDeclaredAccess } from '../lib/storage/access';

export const handler = async (): Promise<{ lists: number; entered: number }> => {
  const result = await withDeclaredAccess(evaluateSmartListsStorage, () => evaluateDeferredSmartLists());
  if (result.lists > 0)
    console.log(JSON.stringify({ level: 'INFO', message: 'smart lists evaluated', ...result }));
  return result;
};
