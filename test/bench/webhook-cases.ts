/**
 * The bench cases of the webhook endpoints (§12), for cases.ts: figures only when warm (their writes
 * and KMS sealing are work no floor does), held cold, like the list management functions, against a
 * bare-SDK handler making one GetItem: what any DynamoDB function loads and sends at least.
 */
import type { RouteId } from '../../lib/routes';
import { ALICE, type EventSpec } from '../support/events';
import type { BenchCase } from './bench-case';
import { companyFloorEvents, request } from './case-events';

/** The webhook endpoint the webhook cases call (Alice's account), made by their setup. */
const BENCH_WEBHOOK = 'wh_0000000000000000beef';

async function benchWebhook(accountId: string): Promise<void> {
  const { putNewWebhook } = await import('../../lib/webhooks/store');
  await putNewWebhook({
    accountId,
    id: BENCH_WEBHOOK,
    url: 'http://127.0.0.1:9/hook',
    description: null,
    enabled: true,
    createdAt: new Date().toISOString(),
    secrets: [],
    cursor: 0,
  }).catch(() => undefined);
}

/** A webhook case: one request to the route, figures only when warm, held cold against one GetItem. */
function endpointCase(
  id: RouteId,
  label: string,
  spec: Omit<EventSpec, 'method' | 'resource'>,
  setup: BenchCase['setup'],
): BenchCase {
  return {
    label,
    floor: 'getCompany',
    budget: null,
    floorEvents: companyFloorEvents,
    events: () => [request(id, spec)],
    setup,
  };
}

/** A call on Alice's bench endpoint; its setup makes the endpoint once (a second put is refused). */
export function webhookCase(id: RouteId, label: string, body?: Record<string, unknown>): BenchCase {
  const spec = {
    ...(id === 'getWebhooks' ? {} : { pathParameters: { id: BENCH_WEBHOOK } }),
    ...(body ? { body } : {}),
  };
  return endpointCase(id, label, spec, () => benchWebhook(ALICE.accountId));
}

/** A call on an endpoint of an account of its own (`<prefix>-{{seq}}`): calls that use an endpoint up. */
export function ownEndpointCase(id: RouteId, label: string, prefix: string): BenchCase {
  const spec = {
    pathParameters: { id: BENCH_WEBHOOK },
    caller: { ...ALICE, accountId: `${prefix}-{{seq}}` },
  };
  return endpointCase(id, label, spec, async ({ callsPerFunction }) => {
    // '{{seq}}' counts this function's calls (and its floor's): one endpoint for each value it can take.
    for (let i = 0; i < 2 * callsPerFunction + 10; i++) await benchWebhook(`${prefix}-${i}`);
  });
}
