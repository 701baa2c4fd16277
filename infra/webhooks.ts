/**
 * Webhook delivery on AWS (contract §12): a FIFO queue announcing new events to the fan-out, an SQS queue
 * of delivery jobs with a dead-letter queue, a KMS key that seals the endpoints' secrets, and alarms on
 * the dead-letter queue and on the share of failed attempts, all in the stage's stateful stack; then
 * (`connect`) the delivery function as the queue's consumer, the fan-out and the test endpoint as its
 * producers, and only the functions that create, rotate or send allowed to use the key.
 *
 * Retries survive crashes and deployments: a job waits in the queue (SQS delays 15 minutes at most, so
 * a later retry is sent on until its time: lib/webhooks/sqs-queue.ts), a function that dies mid-batch
 * leaves its jobs to come back after the visibility timeout, and after 5 receives a job goes to the
 * dead-letter queue and the alarm fires.
 */
import { Duration, Validations, type RemovalPolicy } from 'aws-cdk-lib';
import { MathExpression, Metric } from 'aws-cdk-lib/aws-cloudwatch';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { Key } from 'aws-cdk-lib/aws-kms';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { DELIVERY_METRICS } from '../lib/webhooks/metrics';
import { addAlarm, type AlarmTarget } from './alarms';
import { DELIVERY_SOURCE_CONCURRENCY, FAN_OUT_SOURCE_CONCURRENCY } from './capacity';

export interface WebhookDeliveryProps {
  stage: string;
  /** Where the two alarms go (the stage's topic). */
  alarms: AlarmTarget;
  removalPolicy: RemovalPolicy;
}

/** The functions that use the queues and the key (they live in the stage's other templates). */
export interface WebhookUsers {
  /** The SQS consumer (lib/routes.ts workers.deliverWebhooks). */
  deliver: NodejsFunction;
  /** Queue jobs: the fan-out, the test endpoint. */
  producers: IFunction[];
  /** The fan-out queue's consumer (lib/routes.ts workers.fanOutWebhookEvents), also its sweep's sender. */
  fanOut: NodejsFunction;
  /** Announce new events to the fan-out: the import's partition step. */
  announcers: IFunction[];
  /** Seal secrets: creating an endpoint, rotating its secret. */
  sealers: IFunction[];
}

/** Share of failed attempts over 15 minutes at which the alarm fires (receivers down, or our side). */
export const FAILED_ATTEMPTS_ALARM_RATE = 0.5;
const PERIOD = Duration.minutes(15);

export class WebhookDelivery extends Construct {
  readonly queue: Queue;
  readonly deadLetters: Queue;
  readonly fanOutQueue: Queue;
  readonly key: Key;

  constructor(scope: Construct, id: string, props: WebhookDeliveryProps) {
    super(scope, id);
    this.key = new Key(this, 'SecretsKey', {
      description: `company-data ${props.stage}: seals webhook signing secrets`,
      enableKeyRotation: true,
      removalPolicy: props.removalPolicy,
    });
    this.deadLetters = new Queue(this, 'DeadLetters', {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: Duration.days(14),
      removalPolicy: props.removalPolicy,
    });
    withoutDeadLetters(
      this.deadLetters,
      'It is the dead-letter queue of the delivery queue (an alarm fires on its first message).',
    );
    this.queue = new Queue(this, 'Deliveries', {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      // Six times the function's timeout, as AWS advises for a Lambda consumer.
      visibilityTimeout: Duration.minutes(6),
      retentionPeriod: Duration.days(4),
      deadLetterQueue: { queue: this.deadLetters, maxReceiveCount: 5 },
      removalPolicy: props.removalPolicy,
    });

    // Announcements of new events (lib/webhooks/announce.ts): FIFO, grouped by account, so SQS hands one
    // account's to one fan-out at a time. An import batch announces its accounts; the schedule's sweep
    // announces every account with an endpoint each minute.
    this.fanOutQueue = new Queue(this, 'FanOut', {
      fifo: true,
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      visibilityTimeout: Duration.minutes(6),
      retentionPeriod: Duration.hours(1),
      removalPolicy: props.removalPolicy,
    });
    withoutDeadLetters(
      this.fanOutQueue,
      'An announcement only says "look now": one that fails is tried again until its hour of ' +
        "retention ends, and the fan-out's sweep announces every account each minute anyway.",
    );
    const alarm = (name: string, description: string, metric: Metric | MathExpression, threshold: number) =>
      addAlarm(this, name, props.alarms, { metric, threshold, description });
    alarm(
      'DeliveriesDeadLettered',
      'a webhook delivery job failed 5 receives and is in the dead-letter queue',
      this.deadLetters.metricApproximateNumberOfMessagesVisible({ statistic: 'Maximum', period: PERIOD }),
      1,
    );
    const metric = (name: string) =>
      new Metric({
        namespace: DELIVERY_METRICS.namespace,
        metricName: name,
        statistic: 'Sum',
        period: PERIOD,
      });
    alarm(
      'DeliveryFailureRate',
      `at least ${FAILED_ATTEMPTS_ALARM_RATE * 100} % of webhook delivery attempts failed in 15 minutes`,
      new MathExpression({
        expression: 'IF(a > 0, f / a, 0)',
        usingMetrics: { f: metric(DELIVERY_METRICS.failed), a: metric(DELIVERY_METRICS.attempts) },
        label: 'share of failed delivery attempts',
        period: PERIOD,
      }),
      FAILED_ATTEMPTS_ALARM_RATE,
    );
  }

  /**
   * Lets each function do its part: the delivery function consumes the delivery queue and opens sealed
   * secrets, the producers send jobs, the fan-out consumes the announcements the announcers send, and the
   * sealers seal. The grants are on the functions' roles, beside them.
   */
  connect(props: WebhookUsers): void {
    consume(
      props.deliver,
      // At most this many batches at once (infra/capacity.ts): the routes keep their share of the account.
      new SqsEventSource(this.queue, {
        batchSize: 10,
        reportBatchItemFailures: true,
        maxConcurrency: DELIVERY_SOURCE_CONCURRENCY,
      }),
      "An SQS source's failures stay in the queue and go to its dead-letter queue after 5 receives " +
        '(the redrive policy above, alarmed)',
    );
    sendTo(this.queue, 'WEBHOOK_QUEUE_URL', [props.deliver, ...props.producers]);
    // Exactly the one action each needs (grantEncrypt would add ReEncrypt* and GenerateDataKey*).
    for (const fn of props.sealers) {
      fn.addToRolePolicy(new PolicyStatement({ actions: ['kms:Encrypt'], resources: [this.key.keyArn] }));
      (fn as NodejsFunction).addEnvironment('WEBHOOK_KMS_KEY_ID', this.key.keyArn);
    }
    props.deliver.addToRolePolicy(
      new PolicyStatement({ actions: ['kms:Decrypt'], resources: [this.key.keyArn] }),
    );
    props.deliver.addEnvironment('WEBHOOK_KMS_KEY_ID', this.key.keyArn);

    consume(
      props.fanOut,
      new SqsEventSource(this.fanOutQueue, { batchSize: 10, maxConcurrency: FAN_OUT_SOURCE_CONCURRENCY }),
      "An SQS source's failures stay in the queue (retried until the message's retention ends)",
    );
    sendTo(this.fanOutQueue, 'FAN_OUT_QUEUE_URL', [props.fanOut, ...props.announcers]);
  }
}

/** A queue with no dead-letter queue of its own, and why (the checks that ask for one acknowledged). */
function withoutDeadLetters(queue: Queue, reason: string): void {
  for (const id of ['AwsSolutions-SQS3', 'Serverless-SQSRedrivePolicy']) {
    Validations.of(queue).acknowledge({ id, reason });
  }
}

/** `fn` consumes the queue; its failures stay in the queue (`why`), so no on-failure destination. */
function consume(fn: NodejsFunction, source: SqsEventSource, why: string): void {
  fn.addEventSource(source);
  Validations.of(fn).acknowledge({
    id: 'Serverless-LambdaEventSourceMappingDestination',
    reason: `${why}: an on-failure destination applies to stream sources only.`,
  });
}

/** The functions may send to the queue, whose URL they find in `variable`. */
function sendTo(queue: Queue, variable: string, senders: IFunction[]): void {
  for (const fn of senders) {
    queue.grantSendMessages(fn);
    (fn as NodejsFunction).addEnvironment(variable, queue.queueUrl);
  }
}
