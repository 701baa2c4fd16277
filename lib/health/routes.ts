/** Liveness (contract §10). */
import * as v from 'valibot';
import type { Route } from '../http/route';

export const healthSchema = /* @__PURE__ */ v.object({ status: /* @__PURE__ */ v.literal('ok') });

export const getHealth = {
  method: 'GET',
  path: '/v1/health',
  summary: 'Liveness',
  scope: null,
  storage: {},
  request: {},
  response: healthSchema,
} as const satisfies Route;

/** The domain's routes by id, for the route table (lib/routes.ts). */
export const healthRoutes = { getHealth } as const satisfies Record<string, Route>;
