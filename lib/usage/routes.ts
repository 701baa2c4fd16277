/** `GET /v1/usage` (contract §10, §13): the caller's plan and today's use. */
import * as v from 'valibot';
import type { Route } from '../http/route';
import { operatorPartitions } from '../storage/operator-keys';
import { ANY_SCOPE } from '../tokens/scopes';

const count = /* @__PURE__ */ v.pipe(
  /* @__PURE__ */ v.number(),
  /* @__PURE__ */ v.integer(),
  /* @__PURE__ */ v.minValue(0),
);

export const usageSchema = /* @__PURE__ */ v.object({
  plan: /* @__PURE__ */ v.object({ rate: count, burst: count, dailyQuota: count }),
  today: /* @__PURE__ */ v.object({ requests: count, remaining: count }),
});
export type Usage = v.InferOutput<typeof usageSchema>;

export const getUsage = {
  method: 'GET',
  path: '/v1/usage',
  summary: "The caller's plan and today's use of it",
  scope: ANY_SCOPE,
  // The account's plan item; today's count is the gateway's (API Gateway's usage plan, or the local gateway's).
  storage: { GetItem: [operatorPartitions.accountPlan] },
  request: {},
  response: usageSchema,
} as const satisfies Route;

/** The domain's routes by id, for the route table (lib/routes.ts). */
export const usageRoutes = { getUsage } as const satisfies Record<string, Route>;
