/**
 * The dev stage's import engine (infra/import-engine.ts, contract §11.2): the bucket files are dropped
 * into, the rule that starts an import, its alarms, and what each of its workers may do. Its state
 * machines: stack-import-state-machines.test.ts.
 */
import { Match } from 'aws-cdk-lib/assertions';
import { devTemplate } from './support/stage';
import {
  actionsOf,
  type CfnResource,
  resourcesOfType,
  statementsOf,
  tableGrantsOf,
  workerFunctionId,
} from './support/template';
import * as partitions from '../../lib/storage/partitions';

describe('CompanyDataStack (dev)', () => {
  const template = devTemplate();

  describe('import engine (contract §11.2)', () => {
    it('keeps files in a private, encrypted, TLS-only bucket that tells EventBridge and forgets them', () => {
      template.hasResourceProperties('AWS::S3::Bucket', {
        BucketEncryption: {
          ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }],
        },
        PublicAccessBlockConfiguration: {
          BlockPublicAcls: true,
          BlockPublicPolicy: true,
          IgnorePublicAcls: true,
          RestrictPublicBuckets: true,
        },
        NotificationConfiguration: { EventBridgeConfiguration: { EventBridgeEnabled: true } },
        LifecycleConfiguration: {
          Rules: [
            Match.objectLike({ Prefix: 'incoming/', ExpirationInDays: 30 }),
            Match.objectLike({ Prefix: 'kbo/', ExpirationInDays: 30 }),
            Match.objectLike({ Prefix: 'sirene/', ExpirationInDays: 30 }),
            Match.objectLike({ Prefix: 'filings/cbso/', ExpirationInDays: 30 }),
            Match.objectLike({ Prefix: 'filings/inpi-ratios/', ExpirationInDays: 30 }),
            Match.objectLike({ Prefix: 'work/', ExpirationInDays: 7 }),
            Match.objectLike({ Prefix: 'reports/', ExpirationInDays: 90 }),
          ],
        },
      });
      template.hasResourceProperties('AWS::S3::BucketPolicy', {
        PolicyDocument: {
          Statement: Match.arrayWith([
            Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
          ]),
        },
      });
    });

    it('starts the state machine for every file created under incoming/, kbo/, sirene/ or filings/', () => {
      template.hasResourceProperties('AWS::Events::Rule', {
        EventPattern: {
          source: ['aws.s3'],
          'detail-type': ['Object Created'],
          detail: {
            object: {
              key: [
                { prefix: 'incoming/' },
                { prefix: 'kbo/' },
                { prefix: 'sirene/' },
                { prefix: 'filings/cbso/' },
                { prefix: 'filings/inpi-ratios/' },
              ],
            },
          },
        },
        Targets: [
          Match.objectLike({
            Arn: { Ref: Match.stringLikeRegexp('^ImportEngineStateMachine') },
            InputTransformer: Match.objectLike({
              InputPathsMap: {
                'detail-bucket-name': '$.detail.bucket.name',
                'detail-object-key': '$.detail.object.key',
              },
            }),
            RetryPolicy: { MaximumRetryAttempts: 24, MaximumEventAgeInSeconds: 86_400 },
            DeadLetterConfig: {
              Arn: { 'Fn::GetAtt': [Match.stringLikeRegexp('^ImportEngineUndeliveredEvents'), 'Arn'] },
            },
          }),
        ],
      });
    });

    it('files an event that started no run in an encrypted, TLS-only queue, and raises an alarm', () => {
      const [[queueId]] = resourcesOfType(template, 'AWS::SQS::Queue') as [[string, CfnResource]];
      expect(queueId).toMatch(/^ImportEngineUndeliveredEvents/);
      template.hasResourceProperties('AWS::SQS::Queue', {
        SqsManagedSseEnabled: true,
        MessageRetentionPeriod: 14 * 24 * 3600,
      });
      template.hasResourceProperties('AWS::SQS::QueuePolicy', {
        PolicyDocument: {
          Statement: Match.arrayWith([
            Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
            Match.objectLike({
              Effect: 'Allow',
              Action: 'sqs:SendMessage',
              Principal: { Service: 'events.amazonaws.com' },
            }),
          ]),
        },
      });
      template.hasResourceProperties('AWS::CloudWatch::Alarm', {
        Namespace: 'AWS/SQS',
        MetricName: 'ApproximateNumberOfMessagesVisible',
        Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [queueId, 'QueueName'] } }],
        Threshold: 1,
      });
    });

    it('raises an alarm when a run fails, times out or is aborted', () => {
      const runAlarms = resourcesOfType(template, 'AWS::CloudWatch::Alarm').filter(([id]) =>
        id.startsWith('AlarmsImportRunsFailed'),
      );
      expect(runAlarms).toHaveLength(1);
      const metrics = JSON.stringify(runAlarms[0]![1].Properties.Metrics);
      for (const name of ['ExecutionsFailed', 'ExecutionsTimedOut', 'ExecutionsAborted']) {
        expect(metrics).toContain(`"MetricName":"${name}"`);
      }
      expect(metrics).toContain('ImportEngineStateMachine');
    });

    it("gives the split Lambda's largest local disk, for a registry's files and its joins' sorted runs", () => {
      const withDisk = resourcesOfType(template, 'AWS::Lambda::Function').filter(
        ([, fn]) => (fn.Properties as { EphemeralStorage?: unknown }).EphemeralStorage !== undefined,
      );
      expect(withDisk.map(([id]) => id)).toEqual([workerFunctionId(template, 'importSplit')]);
      expect(withDisk[0]![1].Properties['EphemeralStorage']).toEqual({ Size: 10_240 });
    });

    it('lets the split read only what is dropped and its work files, list only sirene/, filings/cbso/ and those, write only them and reports', () => {
      // Each action with the key prefixes of its objects (or, for a listing, the prefixes it may list).
      const grants = statementsOf(template, workerFunctionId(template, 'importSplit'))
        .filter((statement) => [statement.Action].flat().some((action) => action.startsWith('s3:')))
        .map((statement) => {
          const listed = statement.Condition?.['StringLike']?.['s3:prefix'];
          const prefixes = listed ?? JSON.stringify(statement.Resource).match(/[a-z]+(\/[a-z-]+)?\/\*/g);
          return `${[statement.Action].flat().join(',')} ${[prefixes].flat().join(' ')}`;
        });
      expect(grants.sort()).toEqual([
        's3:GetObject incoming/* kbo/* sirene/* filings/cbso/* filings/inpi-ratios/* work/*',
        's3:ListBucket filings/cbso/*',
        's3:ListBucket sirene/*',
        's3:ListBucket work/*',
        's3:PutObject work/* reports/*',
      ]);
    });

    it.each([
      ['importSplit', ['s3:GetObject', 's3:PutObject', 's3:ListBucket']],
      [
        'importPartition',
        [
          's3:GetObject',
          's3:PutObject',
          's3:ListBucket',
          'secretsmanager:GetSecretValue',
          'secretsmanager:DescribeSecret',
          // Announcing a batch's events to the webhook fan-out (its FIFO queue).
          'sqs:SendMessage',
          'sqs:GetQueueAttributes',
          'sqs:GetQueueUrl',
        ],
      ],
      ['importComplete', ['s3:GetObject', 's3:DeleteObject', 's3:PutObject', 's3:ListBucket']],
      ['lookalikesPlan', ['s3:PutObject']],
      ['lookalikesShard', ['s3:GetObject']],
      ['lookalikesFinish', ['s3:GetObject', 's3:DeleteObject', 's3:ListBucket']],
    ] as const)('gives %s only the bucket actions it uses, no wildcard', (workerId, expected) => {
      const actions = actionsOf(template, workerFunctionId(template, workerId)).filter(
        (a) => !a.startsWith('dynamodb:') && !a.startsWith('logs:') && !a.startsWith('xray:'),
      );
      expect([...new Set(actions)].sort()).toEqual([...expected].sort());
    });

    it("lets the split step write only the import lease, a KBO extract's progress and KBO's roster, and read only what a KBO extract asks of the stage", () => {
      const grants = tableGrantsOf(template, workerFunctionId(template, 'importSplit')).filter(
        (grant) => !grant.startsWith('DENY '),
      );
      expect(grants).toEqual(
        [
          `dynamodb:BatchGetItem table ${partitions.company.pattern}`,
          `dynamodb:BatchGetItem table ${partitions.registryLinks.pattern}`,
          `dynamodb:BatchGetItem table ${partitions.registryRoster.pattern}`,
          `dynamodb:BatchWriteItem table ${partitions.registryRoster.pattern}`,
          `dynamodb:DeleteItem table ${partitions.importLease.pattern}`,
          `dynamodb:PutItem table ${partitions.importLease.pattern}`,
          `dynamodb:GetItem table ${partitions.registryProgress.pattern}`,
          `dynamodb:Query table ${partitions.filterProfiles.pattern}`,
          `dynamodb:Query table ${partitions.registryRoster.pattern}`,
          `dynamodb:UpdateItem table ${partitions.registryProgress.pattern}`,
          `dynamodb:UpdateItem table ${partitions.registryRoster.pattern}`,
        ].sort(),
      );
    });

    it('outputs the bucket for operators', () => {
      template.hasOutput('ImportBucketName', {});
    });
  });
});
