/**
 * The local stage's fair-use gate (contract §13), the figures API Gateway's usage plans enforce on AWS:
 * per account a token bucket (refilled at `rate` per second, holding at most `burst`) and a count of
 * today's requests against `dailyQuota`. A request over either is refused with the seconds to wait.
 * One instance per process: the local gateway takes from it and `GET /v1/usage` reads it (the same
 * process runs both, as the gateway loads the handlers).
 */
import { secondsUntilNextUtcDay, utcDay, type Plan } from '../plans/plans';

export type Admission = { allowed: true } | { allowed: false; retryAfterSeconds: number };

interface AccountState {
  tokens: number;
  refilledAt: number;
  day: string;
  requests: number;
}

export class PlanLimiter {
  private readonly accounts = new Map<string, AccountState>();

  /** Counts a request of the account if its plan lets it through now. */
  admit(accountId: string, plan: Plan, now = new Date()): Admission {
    const state = this.current(accountId, plan, now);
    if (state.requests >= plan.dailyQuota)
      return { allowed: false, retryAfterSeconds: secondsUntilNextUtcDay(now) };
    if (state.tokens < 1) {
      return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil((1 - state.tokens) / plan.rate)) };
    }
    state.tokens -= 1;
    state.requests += 1;
    return { allowed: true };
  }

  /** Counts a request of the account without judging it (a gateway that enforces no plan still counts). */
  count(accountId: string, now = new Date()): void {
    const day = utcDay(now);
    const state = this.accounts.get(accountId);
    if (!state) this.accounts.set(accountId, { tokens: 0, refilledAt: now.getTime(), day, requests: 1 });
    else if (state.day !== day) Object.assign(state, { day, requests: 1 });
    else state.requests += 1;
  }

  /** Requests the account made today (UTC) that were let through. */
  requestsToday(accountId: string, now = new Date()): number {
    const state = this.accounts.get(accountId);
    return state && state.day === utcDay(now) ? state.requests : 0;
  }

  /** The account's bucket refilled up to `now`, and its day's count started afresh on a new day. */
  private current(accountId: string, plan: Plan, now: Date): AccountState {
    const at = now.getTime();
    const day = utcDay(now);
    let state = this.accounts.get(accountId);
    if (!state) {
      state = { tokens: plan.burst, refilledAt: at, day, requests: 0 };
      this.accounts.set(accountId, state);
    }
    // A plan lowered meanwhile caps the bucket at once.
    state.tokens = Math.min(plan.burst, state.tokens + ((at - state.refilledAt) / 1000) * plan.rate);
    state.refilledAt = at;
    if (state.day !== day) {
      state.day = day;
      state.requests = 0;
    }
    return state;
  }
}

/** The process's limiter (the local gateway and the usage handler share it). */
export const localLimiter = new PlanLimiter();
