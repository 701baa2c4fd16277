/**
 * What the import engine keeps in the stage's stateful stack (infra/stack.ts): the bucket files are
 * dropped in (infra/import-engine.ts runs what they start) and the queue of "file dropped" events that
 * could not start a run.
 */
import { Duration, RemovalPolicy, Validations } from 'aws-cdk-lib';
import { BlockPublicAccess, Bucket, BucketEncryption, type CfnBucket } from 'aws-cdk-lib/aws-s3';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { INCOMING_PREFIX, REPORTS_PREFIX, WORK_PREFIX } from '../lib/import/engine';
import { REGISTRY_PREFIXES } from '../lib/import/registry-engine';
import { FILING_PREFIXES } from '../lib/filings/engine';

/** Where files that start a run are dropped: JSON Lines, each registry's files and the filings (§11.5.11). */
export const DROP_PREFIXES = [
  INCOMING_PREFIX,
  REGISTRY_PREFIXES.kbo,
  REGISTRY_PREFIXES.sirene,
  FILING_PREFIXES.cbso,
  FILING_PREFIXES['inpi-ratios'],
];

/**
 * What the import keeps, in the stage's stateful stack (kept, deployed rarely): the bucket files are
 * dropped in, and the queue of "file dropped" events that could not start a run.
 */
export class ImportStore extends Construct {
  readonly bucket: Bucket;
  /** Where a "file dropped" event that could not start a run ends up (the DLQ of the rule's target). */
  readonly undeliveredEvents: Queue;

  constructor(scope: Construct, id: string, props: { removalPolicy: RemovalPolicy }) {
    super(scope, id);
    this.bucket = new Bucket(this, 'Bucket', {
      encryption: BucketEncryption.S3_MANAGED,
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      enforceSSL: true,
      removalPolicy: props.removalPolicy,
      lifecycleRules: [
        ...DROP_PREFIXES.map((prefix) => ({ prefix, expiration: Duration.days(30) })),
        // A run's work files are removed by its last step; these are the leftovers of failed runs.
        { prefix: WORK_PREFIX, expiration: Duration.days(7) },
        { prefix: REPORTS_PREFIX, expiration: Duration.days(90) },
      ],
    });
    // Events to EventBridge, set on the bucket itself (eventBridgeEnabled would add a custom resource Lambda).
    (this.bucket.node.defaultChild as CfnBucket).notificationConfiguration = {
      eventBridgeConfiguration: { eventBridgeEnabled: true },
    };
    Validations.of(this.bucket).acknowledge({
      id: 'AwsSolutions-S1',
      reason:
        'Only the stage operators and the import workers touch this bucket; its files are transient ' +
        '(expired by lifecycle rules) and each run leaves a report under reports/ and in the logs.',
    });

    this.undeliveredEvents = new Queue(this, 'UndeliveredEvents', {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: Duration.days(14),
      removalPolicy: props.removalPolicy,
    });
    for (const id of ['AwsSolutions-SQS3', 'Serverless-SQSRedrivePolicy']) {
      Validations.of(this.undeliveredEvents).acknowledge({
        id,
        reason:
          "It is a dead-letter queue itself: the import rule's target sends it the events it could not " +
          'deliver (an alarm fires on its first message); nothing consumes it to fail again.',
      });
    }
  }
}
