/** A delivery attempt to make (contract §12), as the queue keeps it: here so both queues share it. */
export interface DeliveryJob {
  accountId: string;
  webhookId: string;
  eventId: string;
  /** The attempt this job is (1 for the first). */
  attempt: number;
  /** The event's JSON, sent as it is. */
  body: string;
}

export interface DueJob {
  job: DeliveryJob;
  dueMs: number;
}
