/**
 * The route table: every endpoint, composed from the domains' own route declarations. The CDK stack
 * (routes, functions, grants), the local gateway (routing, 404/405, auth), the benchmark and the tests
 * read it; a handler imports only its own domain's routes, so it bundles only those schemas.
 * Adding an endpoint = one row in its domain's `routes.ts` plus `functions/<route-id-in-kebab-case>.ts`.
 */
import { companyRoutes } from './companies/routes';
import { docsRoutes } from './docs/routes';
import { eventRoutes } from './events/routes';
import { healthRoutes } from './health/routes';
import { legalEntityRoutes } from './legal-entities/routes';
import { listRoutes } from './lists/routes';
import { lookalikeRoutes } from './lookalikes/routes';
import { matchingRoutes } from './matching/routes';
import { searchRoutes } from './search/routes';
import { updateRoutes } from './updates/routes';
import { usageRoutes } from './usage/routes';
import { webhookRoutes } from './webhooks/routes';
import type { Route } from './http/route';
import { importCompleteStorage, importPartitionStorage, importSplitStorage } from './import/storage-access';
import { evaluateSmartListsStorage } from './lists/smart-background';
import { cleanUpListsStorage } from './lists/store/clean-up';
import { lookalikeFinishStorage, lookalikePlanStorage, lookalikeShardStorage } from './lookalikes/fan-out';
import type { StorageAccess } from './storage/access';
import { authorizerStorage } from './tokens/authorize';
import { deliveryStorage, fanOutStorage } from './webhooks/deliver';

/** Each domain's routes, by the folder of `lib/` that owns them. */
export const routesByDomain = {
  health: healthRoutes,
  companies: companyRoutes,
  search: searchRoutes,
  matching: matchingRoutes,
  'legal-entities': legalEntityRoutes,
  lookalikes: lookalikeRoutes,
  lists: listRoutes,
  updates: updateRoutes,
  events: eventRoutes,
  webhooks: webhookRoutes,
  docs: docsRoutes,
  usage: usageRoutes,
} as const satisfies Record<string, Record<string, Route>>;

export const routes = {
  ...healthRoutes,
  ...companyRoutes,
  ...searchRoutes,
  ...matchingRoutes,
  ...legalEntityRoutes,
  ...lookalikeRoutes,
  ...listRoutes,
  ...updateRoutes,
  ...eventRoutes,
  ...webhookRoutes,
  ...docsRoutes,
  ...usageRoutes,
} as const satisfies Record<string, Route>;

export type RouteId = keyof typeof routes;

/** The authorizer is not a route: the gateway runs it before every route whose `scope` is set. */
export const authorizer = {
  entry: 'functions/authorize.ts',
  /** Token items by hash, nothing else (lib/tokens/authorize.ts). */
  storage: authorizerStorage,
  /**
   * How long a gateway reuses the authorizer's answer for a token (AWS and the local gateway alike): short,
   * so a revoked token stops working within 5 seconds (contract §13) without a flush of the cache; a busy
   * token costs one authorizer call every 4 seconds.
   */
  cacheTtlSeconds: 4,
} as const;

/** Background workers: functions in `functions/` that no route calls, each with its storage declaration. */
export const workers = {
  /**
   * The import at scale (contract §11.2, lib/import/engine.ts): the steps of the state machine that
   * imports a file dropped in the stage's import bucket (infra/import-engine.ts).
   */
  importSplit: {
    entry: 'functions/import-split.ts',
    storage: importSplitStorage,
    timeoutMinutes: 15,
    memoryMb: 3008,
  },
  importPartition: {
    entry: 'functions/import-partition.ts',
    storage: importPartitionStorage,
    timeoutMinutes: 15,
    // One full vCPU: the import is CPU-bound between its batch requests.
    memoryMb: 1769,
  },
  importComplete: {
    entry: 'functions/import-complete.ts',
    storage: importCompleteStorage,
    timeoutMinutes: 15,
    memoryMb: 3008,
  },
  /**
   * The lookalike recompute (contract §6.3) as a fan-out (lib/lookalikes/fan-out.ts): the steps of the
   * import's state machine (its changed companies) and of the full job's (every company: weekly, and
   * at once after a change of the scoring), infra/import-engine.ts. The plan and the shards hold one
   * section at a time (features, index, snapshot): memory for a section of about 3 M companies.
   */
  lookalikesPlan: {
    entry: 'functions/import-lookalikes-plan.ts',
    storage: lookalikePlanStorage,
    timeoutMinutes: 15,
    memoryMb: 4096,
  },
  lookalikesShard: {
    entry: 'functions/import-lookalikes-shard.ts',
    storage: lookalikeShardStorage,
    timeoutMinutes: 15,
    memoryMb: 4096,
  },
  lookalikesFinish: {
    entry: 'functions/import-lookalikes-finish.ts',
    storage: lookalikeFinishStorage,
    timeoutMinutes: 5,
    memoryMb: 512,
  },
  /** The rest of the smart lists whose filter matched more than a request evaluates (contract §7.6). */
  evaluateSmartLists: {
    entry: 'functions/evaluate-smart-lists.ts',
    storage: evaluateSmartListsStorage,
    timeoutMinutes: 15,
    memoryMb: 1769,
    schedule: { minute: '*' },
    localEveryMs: 1000,
  },
  /** Deletes what deleted lists leave (contract §7.6: their members and order items). */
  cleanUpLists: {
    entry: 'functions/clean-up-lists.ts',
    storage: cleanUpListsStorage,
    timeoutMinutes: 5,
    memoryMb: 512,
    schedule: { minute: '*' },
    localEveryMs: 1000,
  },
  /**
   * Queues each webhook endpoint's new events (contract §12); on AWS into SQS (infra/webhooks.ts), when
   * an import batch announces them and at the minute's sweep. Locally it sweeps every 250 ms: a
   * delivery leaves within a second of its batch.
   */
  fanOutWebhookEvents: {
    entry: 'functions/fan-out-webhook-events.ts',
    storage: fanOutStorage,
    timeoutMinutes: 1,
    memoryMb: 512,
    schedule: { minute: '*' },
    localEveryMs: 250,
  },
  /**
   * Webhook delivery attempts (contract §12): the SQS queue's consumer on AWS (infra/webhooks.ts), the
   * table's jobs due every 250 ms on the local stage. 10 s per attempt at most, 10 jobs a batch at once.
   */
  deliverWebhooks: {
    entry: 'functions/deliver-webhooks.ts',
    storage: deliveryStorage,
    timeoutMinutes: 1,
    memoryMb: 512,
    localEveryMs: 250,
  },
} as const satisfies Record<string, Worker>;

export type WorkerId = keyof typeof workers;

export interface Worker {
  entry: string;
  /** What it may do to the table: as a route's `storage` (lib/http/route.ts), its IAM policy is made from it. */
  storage: StorageAccess;
  timeoutMinutes: number;
  memoryMb: number;
  /**
   * When it runs by itself (UTC, EventBridge cron fields; an absent one is every: `{ minute: '*' }` is
   * every minute); absent for a step of a state machine.
   */
  schedule?: { weekDay?: string; hour?: string; minute: string };
  /** The local gateway runs it in-process this often (ms), as the stage's schedule runs its Lambda. */
  localEveryMs?: number;
}
