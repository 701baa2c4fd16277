/** Liveness (contract §10). */
import * as v from 'valibot';
import type { Route } from '../http/route';

export const healthSchema = v.object({ status: v.literal('ok') });

export const healthRoutes = {
  getHealth: {
    method: 'GET',
    path: '/v1/health',
    summary: 'Liveness',
    scope: null,
    storage: {},
    request: {},
    response: healthSchema,
  },
} as const satisfies Record<string, Route>;
