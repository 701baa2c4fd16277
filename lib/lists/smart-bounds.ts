/**
 * The bound on a request's smart-list evaluation (contract §7.6): at most EVALUATE_AT_ONCE companies enter
 * a list per request; the rest is noted for the background worker (smart-background.ts). Apart from the
 * worker so the create and change functions bundle only this.
 */
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { dynamodb, send, tableName } from '../storage/client';
import * as keys from '../storage/keys';
import { matchesFilters, type Filters } from './filters';
import type { Candidate } from './smart';

/** At most this many companies enter a smart list per request or per run of the worker. */
export const EVALUATE_AT_ONCE = 10_000;

/**
 * The candidates to evaluate now: every one that may be in the list already (it may leave), and the
 * first EVALUATE_AT_ONCE that match and are not in it; `deferred` counts the matching ones left over.
 */
export function boundedCandidates(
  filters: Filters,
  candidates: Candidate[],
): { now: Candidate[]; deferred: number } {
  const now: Candidate[] = [];
  let entering = 0;
  let deferred = 0;
  for (const candidate of candidates) {
    if (candidate.listed !== false) now.push(candidate);
    else if (!matchesFilters(filters, candidate.profile)) continue;
    else if (entering < EVALUATE_AT_ONCE) {
      entering++;
      now.push(candidate);
    } else deferred++;
  }
  return { now, deferred };
}

/** Notes that a list's evaluation goes on in the background (its filters as the job's version). */
export async function deferEvaluation(accountId: string, listId: number, filters: Filters): Promise<void> {
  await send(() =>
    dynamodb().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.smartListEvaluation(accountId, listId),
        UpdateExpression: 'SET entity = :entity, filters = :filters',
        ExpressionAttributeValues: { ':entity': 'SmartListEvaluation', ':filters': JSON.stringify(filters) },
      }),
    ),
  );
}
