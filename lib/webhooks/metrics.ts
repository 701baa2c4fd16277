/**
 * The delivery function's figures as CloudWatch metrics, in the embedded metric format (one log line per
 * batch; CloudWatch turns it into metrics without any API call): attempts made and attempts failed, from
 * which infra/webhooks.ts alarms on the failure rate.
 */
export const DELIVERY_METRICS = {
  namespace: 'CompanyData/Webhooks',
  attempts: 'DeliveryAttempts',
  failed: 'DeliveryAttemptsFailed',
} as const;

export function deliveryMetricsLine(attempts: number, failed: number, at = Date.now()): string {
  return JSON.stringify({
    _aws: {
      Timestamp: at,
      CloudWatchMetrics: [
        {
          Namespace: DELIVERY_METRICS.namespace,
          Dimensions: [[]],
          Metrics: [
            { Name: DELIVERY_METRICS.attempts, Unit: 'Count' },
            { Name: DELIVERY_METRICS.failed, Unit: 'Count' },
          ],
        },
      ],
    },
    [DELIVERY_METRICS.attempts]: attempts,
    [DELIVERY_METRICS.failed]: failed,
  });
}
