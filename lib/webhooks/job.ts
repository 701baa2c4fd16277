/** A delivery attempt to make (contract §12), as the queue keeps it: here so both queues share it. */
export interface DeliveryJob {
  accountId: string;
  webhookId: string;
  eventId: string;
  /** The attempt this job is (1 for the first). */
  attempt: number;
  /** The event's JSON as derived (each attempt shows it as the endpoint's creator may see it then). */
  body: string;
  /** A test delivery (`POST …/test`): attempted once, never retried. */
  test?: true;
  /**
   * A retry: the times of its log entries (lib/webhooks/deliveries.ts) — the failed attempt before it
   * and its own `pending` entry — which its attempt replaces or, when it is dropped, closes.
   */
  logged?: { failedAtMs: number; pendingAtMs: number };
}

export interface DueJob {
  job: DeliveryJob;
  dueMs: number;
}
