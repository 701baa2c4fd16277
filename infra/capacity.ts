/**
 * How a deployed stage is sized so that a flood cannot take other tenants down (contract §13), from the
 * plans sold (PLAN_TIERS, lib/plans/plans.ts) and the account's Lambda concurrency. docs/security.md
 * (API4) writes the arithmetic out; test/infra/edge.test.ts checks that every figure here holds it.
 *
 * - Per address (WAF): above the largest plan's rate and burst over the WAF's 5-minute window, so no
 *   address that sends valid tokens is limited below its plan; well under the stage's ceiling, so one
 *   address cannot take the stage.
 * - The stage's ceiling: many of the largest plans at once, within what the route functions' share of
 *   the account's concurrency serves at a mean function duration of ROUTE_MEAN_SECONDS.
 * - The authorizer: enough reserved executions for every request of the ceiling to be uncached (a flood
 *   of distinct tokens) at AUTHORIZER_MEAN_SECONDS each.
 * - The workers: each bounded (reserved concurrency, or the maximum concurrency of its queue's event
 *   source), so together with the authorizer they leave the routes ROUTE_CONCURRENCY.
 */
import { Duration } from 'aws-cdk-lib';
import { JitterType } from 'aws-cdk-lib/aws-stepfunctions';
import { LambdaInvoke, type LambdaInvokeProps } from 'aws-cdk-lib/aws-stepfunctions-tasks';
import type { Construct } from 'constructs';
import { PLAN_TIERS } from '../lib/plans/plans';
import type { WorkerId } from '../lib/routes';

/** Lambda's default concurrent executions per account and region. */
export const ACCOUNT_CONCURRENCY = 1000;

/** The WAF's rate window (seconds): rate-based rules count requests per address over it. */
export const WAF_WINDOW_SECONDS = 300;

/** The largest plan sold: its steady rate and burst (requests). */
export const LARGEST_PLAN = Object.values(PLAN_TIERS).reduce((a, b) => (b.rate > a.rate ? b : a));

/**
 * Requests one address may make per second, whatever its headers: 1.2 times the largest plan's rate,
 * so a client on that plan (its rate over the window plus its whole burst) stays under it.
 */
export const ADDRESS_RATE = LARGEST_PLAN.rate * 1.2;
/** The same over the WAF's window, as its rule counts it. */
export const DEFAULT_WAF_RATE_LIMIT = ADDRESS_RATE * WAF_WINDOW_SECONDS;

/**
 * Requests without a well-formed bearer header (no token, or a header that cannot be one) one address
 * may make in the window: health checks, the OpenAPI document, and guesses.
 */
export const DEFAULT_WAF_ANONYMOUS_RATE_LIMIT = 600;
/** Requests to the public routes (health, OpenAPI document, docs) one address may make in the window. */
export const DEFAULT_WAF_PUBLIC_RATE_LIMIT = 600;

/** Mean duration of a route function under load (cold starts included) the ceiling is sized for. */
export const ROUTE_MEAN_SECONDS = 0.25;
/** Mean duration of an uncached authorizer call (one strongly consistent GetItem). */
export const AUTHORIZER_MEAN_SECONDS = 0.03;

/** The stage's ceiling over every account together (requests a second), and its burst. */
export const DEFAULT_THROTTLE_RATE = 3000;
export const DEFAULT_THROTTLE_BURST = 5000;

/** Executions reserved for the token authorizer: every request of the ceiling uncached, with a margin. */
export const DEFAULT_AUTHORIZER_CONCURRENCY = 100;

/** Delivery batches at once (10 jobs each, 10 s per attempt at most): the delivery queue's source. */
export const DELIVERY_SOURCE_CONCURRENCY = 50;

/**
 * Each worker's bound: concurrent executions at most. A worker fed by a queue is bounded by its event
 * source's maximum concurrency (a reserved concurrency below it would throttle its batches back into the
 * queue); the others by reserved concurrency (a throttled schedule is the next minute's run; a throttled
 * import step is retried by its state machine). `import` marks the steps the import's maps run in
 * parallel: their bound is the import's concurrency (`-c importConcurrency`).
 */
export const WORKER_CONCURRENCY: Record<WorkerId, number | 'import'> = {
  importSplit: 2,
  importPartition: 'import',
  importComplete: 2,
  lookalikesPlan: 2,
  lookalikesShard: 'import',
  lookalikesFinish: 2,
  evaluateSmartLists: 2,
  cleanUpLists: 2,
  // Its queue's source takes at most FAN_OUT_SOURCE_CONCURRENCY; the minute's sweep the last one.
  fanOutWebhookEvents: 6,
  deliverWebhooks: DELIVERY_SOURCE_CONCURRENCY,
};
/** The fan-out's queue source: below its reserved concurrency, which also serves the minute's sweep. */
export const FAN_OUT_SOURCE_CONCURRENCY = 5;
/** Workers consumed from a queue: bounded by the source's maximum concurrency, nothing reserved. */
export const QUEUE_WORKERS: readonly WorkerId[] = ['deliverWebhooks'];

/** Every worker's bound, with the import's concurrency in place of `import`. */
export function workerBounds(importConcurrency: number): Record<WorkerId, number> {
  return Object.fromEntries(
    Object.entries(WORKER_CONCURRENCY).map(([id, bound]) => [
      id,
      bound === 'import' ? importConcurrency : bound,
    ]),
  ) as Record<WorkerId, number>;
}

/** What the route functions keep of the account's concurrency when the authorizer and every worker run flat out. */
export function routeConcurrency(authorizerConcurrency: number, importConcurrency: number): number {
  const workers = Object.values(workerBounds(importConcurrency)).reduce((sum, n) => sum + n, 0);
  return ACCOUNT_CONCURRENCY - authorizerConcurrency - workers;
}

/**
 * A state machine's Lambda step that, throttled by its function's reserved concurrency (another run
 * holds the slots), waits for a slot, up to about two hours, instead of failing the run. This retrier
 * comes first: the step's own ones (`States.ALL`) are added after it.
 */
export class SlotWaitingInvoke extends LambdaInvoke {
  constructor(scope: Construct, id: string, props: LambdaInvokeProps) {
    super(scope, id, props);
    this.addRetry({
      errors: ['Lambda.TooManyRequestsException'],
      maxAttempts: 60,
      interval: Duration.seconds(5),
      backoffRate: 1.5,
      maxDelay: Duration.minutes(2),
      jitterStrategy: JitterType.FULL,
    });
  }
}
