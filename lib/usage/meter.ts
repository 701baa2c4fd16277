/** Where today's count of an account's requests comes from (the gateway's own: API Gateway's, or the local one). */
import type { AccountPlan } from './store';

export interface UsageMeter {
  requestsToday(accountId: string, plan: AccountPlan, now: Date): Promise<number>;
}
