/**
 * The dev stage's import engine (infra/import-engine.ts, contract §11.2): the bucket files are dropped
 * into, the rule and state machines that import them and recompute the lookalikes, and what each of
 * their workers may do.
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

    const definitionOf = (prefix: string) => {
      const [[, machine]] = resourcesOfType(template, 'AWS::StepFunctions::StateMachine').filter(([id]) =>
        id.startsWith(prefix),
      ) as [[string, CfnResource]];
      expect(machine.Properties).toMatchObject({
        TracingConfiguration: { Enabled: true },
        LoggingConfiguration: { Level: 'ALL' },
      });
      return JSON.stringify(machine.Properties.DefinitionString);
    };

    /** The states of a definition by name (the template holds it as a string joined with references). */
    const statesOf = (prefix: string): Record<string, Record<string, unknown>> => {
      const [[, machine]] = resourcesOfType(template, 'AWS::StepFunctions::StateMachine').filter(([id]) =>
        id.startsWith(prefix),
      ) as [[string, CfnResource]];
      const parts = (machine.Properties.DefinitionString as { 'Fn::Join': [string, unknown[]] })[
        'Fn::Join'
      ][1];
      // A reference always stands inside a JSON string of the definition (an ARN, a bucket name).
      const text = parts.map((part) => (typeof part === 'string' ? part : '<ref>')).join('');
      return (JSON.parse(text) as { States: Record<string, Record<string, unknown>> }).States;
    };

    it('splits, imports the partitions, recomputes the lookalikes in shards, then completes; traced and logged', () => {
      const definition = definitionOf('ImportEngineStateMachine');
      for (const expected of [
        '\\"StartAt\\":\\"Split\\"',
        '\\"Type\\":\\"Map\\"',
        '\\"Mode\\":\\"DISTRIBUTED\\"',
        '\\"ItemsPath\\":\\"$.partitions\\"',
        '\\"MaxConcurrency\\":16',
        '\\"Next\\":\\"LookalikesStart\\"',
        '\\"mode\\":\\"marked\\"',
        '\\"ItemsPath\\":\\"$.lookalikes.shards\\"',
      ]) {
        expect(definition).toContain(expected);
      }
    });

    it('imports what the split cut, asks again a minute later while a SIRENE pair is incomplete, ends when nothing is to import', () => {
      const states = statesOf('ImportEngineStateMachine');
      expect(states['Split']).toMatchObject({
        Parameters: {
          'bucket.$': '$.bucket',
          'key.$': '$.key',
          'run.$': '$$.Execution.Name',
          'startedAt.$': '$$.Execution.StartTime',
        },
        Next: 'SplitAnswer',
      });
      expect(states['SplitAnswer']).toEqual({
        Type: 'Choice',
        Choices: [
          { Variable: '$.status', StringEquals: 'wait', Next: 'WaitForPair' },
          { Variable: '$.status', StringEquals: 'ranges', Next: 'SplitRanges' },
          { Variable: '$.status', StringEquals: 'done', Next: 'NothingToImport' },
        ],
        Default: 'ImportPartitions',
      });
      // SIRENE's ranges: each split by a worker of its own, then gathered by the split, which answers again.
      expect(states['SplitRanges']).toMatchObject({
        Type: 'Map',
        ItemProcessor: { ProcessorConfig: { Mode: 'DISTRIBUTED' } },
        ItemsPath: '$.ranges',
        // The split's reserved concurrency (infra/capacity.ts).
        MaxConcurrency: 2,
        ItemSelector: {
          'bucket.$': '$.bucket',
          'key.$': '$.key',
          'run.$': '$.run',
          'startedAt.$': '$.startedAt',
          'establishments.$': '$.establishments',
          'range.$': '$$.Map.Item.Value',
        },
        ResultPath: null,
        Next: 'GatherRanges',
      });
      expect(states['GatherRanges']).toMatchObject({
        Parameters: { gather: true, 'note.$': '$.note', 'run.$': '$.run' },
        Next: 'SplitAnswer',
      });
      expect(states['WaitForPair']).toEqual({ Type: 'Wait', Seconds: 60, Next: 'Split' });
      expect(states['NothingToImport']).toEqual({ Type: 'Succeed' });
      // Each partition knows what it holds: JSON Lines or a registry's units.
      expect(states['ImportPartitions']).toMatchObject({
        ItemSelector: {
          'bucket.$': '$.bucket',
          'run.$': '$.run',
          'asOf.$': '$.asOf',
          'format.$': '$.format',
          'partition.$': '$$.Map.Item.Value',
        },
      });
    });

    it('retries a split or partition that finds the import lease held by another run for hours; frees it after the partitions', () => {
      const states = statesOf('ImportEngineStateMachine');
      const partitionStates = (states['ImportPartitions']!['ItemProcessor'] as { States: typeof states })
        .States;
      const rangeStates = (states['SplitRanges']!['ItemProcessor'] as { States: typeof states }).States;
      for (const step of [
        states['Split'],
        partitionStates['ImportPartition'],
        rangeStates['SplitRange'],
        states['GatherRanges'],
      ]) {
        const retries = step!['Retry'] as Array<{ ErrorEquals: string[] } & Record<string, unknown>>;
        // Lambda's own transient errors and throttles first (capacity.ts), any other failure last.
        expect(retries.map((r) => r.ErrorEquals).slice(1)).toEqual([
          ['Lambda.TooManyRequestsException'],
          ['ImportLeaseHeld'],
          ['States.ALL'],
        ]);
        expect(retries[2]).toEqual({
          ErrorEquals: ['ImportLeaseHeld'],
          IntervalSeconds: 30,
          MaxAttempts: 100,
          BackoffRate: 1.5,
          MaxDelaySeconds: 300,
          JitterStrategy: 'FULL',
        });
      }
      expect(states['ImportPartitions']).toMatchObject({ Next: 'ReleaseImportLease' });
      expect(states['ReleaseImportLease']).toMatchObject({
        Parameters: { 'run.$': '$$.Execution.Name', releaseImportLease: true },
        ResultPath: null,
        Next: 'LookalikesStart',
      });
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

    it("recomputes an import's lookalikes in rounds under the lease, and completes without them when it is held", () => {
      const states = statesOf('ImportEngineStateMachine');
      expect(states['LookalikesStart']).toMatchObject({
        Type: 'Pass',
        Result: { round: 1 },
        ResultPath: '$.lookalikes',
        Next: 'LookalikesPlan',
      });
      expect(states['LookalikesPlan']).toMatchObject({
        Parameters: { mode: 'marked', 'round.$': '$.lookalikes.round', 'run.$': '$$.Execution.Name' },
        ResultPath: '$.lookalikes',
        Next: 'LookalikesPlanned',
      });
      // Planned: the shards, then the finish; not planned (nothing marked, or the lease held): Complete.
      expect(states['LookalikesPlanned']).toEqual({
        Type: 'Choice',
        Choices: [{ Variable: '$.lookalikes.planned', BooleanEquals: true, Next: 'LookalikesShards' }],
        Default: 'Complete',
      });
      expect(states['LookalikesShards']).toMatchObject({ Next: 'LookalikesFinish' });
      expect(states['LookalikesFinish']).toMatchObject({
        Parameters: { 'round.$': '$.lookalikes.round', 'run.$': '$$.Execution.Name' },
        ResultPath: '$.lookalikes',
        Next: 'LookalikesAgain',
      });
      // Marks left: back to the plan, for the next round.
      expect(states['LookalikesAgain']).toEqual({
        Type: 'Choice',
        Choices: [{ Variable: '$.lookalikes.again', BooleanEquals: true, Next: 'LookalikesPlan' }],
        Default: 'Complete',
      });
      expect(states['Complete']).toMatchObject({ End: true });
    });

    it('runs the full lookalike job as the same fan-out, weekly, and outputs it for an operator', () => {
      const definition = definitionOf('ImportEngineLookalikesStateMachine');
      for (const expected of [
        '\\"StartAt\\":\\"AllLookalikesStart\\"',
        '\\"mode\\":\\"all\\"',
        '\\"Mode\\":\\"DISTRIBUTED\\"',
        '\\"ItemsPath\\":\\"$.lookalikes.shards\\"',
        '\\"Next\\":\\"AllLookalikesFinish\\"',
      ]) {
        expect(definition).toContain(expected);
      }
      const states = statesOf('ImportEngineLookalikesStateMachine');
      // The lease held: wait for it and plan again (the state machine's timeout bounds the wait).
      expect(states['AllLookalikesPlanned']).toEqual({
        Type: 'Choice',
        Choices: [
          { Variable: '$.lookalikes.planned', BooleanEquals: true, Next: 'AllLookalikesShards' },
          { Variable: '$.lookalikes.waitForLease', BooleanEquals: true, Next: 'AllLookalikesWaitForLease' },
        ],
        Default: 'AllLookalikesDone',
      });
      expect(states['AllLookalikesWaitForLease']).toEqual({
        Type: 'Wait',
        Seconds: 300,
        Next: 'AllLookalikesPlan',
      });
      expect(states['AllLookalikesAgain']).toEqual({
        Type: 'Choice',
        Choices: [{ Variable: '$.lookalikes.again', BooleanEquals: true, Next: 'AllLookalikesPlan' }],
        Default: 'AllLookalikesDone',
      });
      expect(states['AllLookalikesDone']).toEqual({ Type: 'Succeed' });
      template.hasResourceProperties('AWS::Events::Rule', {
        ScheduleExpression: 'cron(0 3 ? * SUN *)',
        Targets: [
          Match.objectLike({
            Arn: { Ref: Match.stringLikeRegexp('^ImportEngineLookalikesStateMachine') },
            RetryPolicy: { MaximumRetryAttempts: 2 },
          }),
        ],
      });
      template.hasOutput('LookalikesStateMachineArn', {});
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
