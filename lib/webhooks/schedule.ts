/**
 * When a failed delivery is tried again (contract §12): after about 5 s, 5 min, 30 min, 2 h, 5 h, 10 h
 * and 10 h, each ± 20 % at random (so receivers that failed together are not all called again at one
 * moment); after the eighth failed attempt the delivery is `failed`. WEBHOOK_RETRY_SCALE multiplies
 * every wait: the tests run the whole schedule in seconds, attempt by attempt, skipping none.
 */
import { webhookConfig } from '../config';

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

/** The wait after failed attempt n (1-based) is RETRY_DELAYS_MS[n - 1]. */
export const RETRY_DELAYS_MS = [
  5 * SECOND,
  5 * MINUTE,
  30 * MINUTE,
  2 * HOUR,
  5 * HOUR,
  10 * HOUR,
  10 * HOUR,
];
export const MAX_ATTEMPTS = RETRY_DELAYS_MS.length + 1;
export const JITTER = 0.2;

/** The wait before the attempt after failed attempt `attempt`, or null when it was the last. */
export function retryDelayMs(
  attempt: number,
  random = Math.random(),
  scale = webhookConfig.retryScale(),
): number | null {
  const base = RETRY_DELAYS_MS[attempt - 1];
  if (base === undefined) return null;
  return Math.round(base * scale * (1 - JITTER + 2 * JITTER * random));
}

/** §12: an endpoint whose deliveries all failed this long is disabled. */
export const FAILING_DISABLES_AFTER_MS = 5 * 24 * HOUR;
