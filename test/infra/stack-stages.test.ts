/**
 * What changes from stage to stage: what a stage keeps when it is deleted or replaced (the table, the
 * bucket, the key, the logs) and a disposable stage that keeps nothing, throttling limits and an alarm
 * address given as context, what a production stage refuses to be synthesised without, and cdk-nag's
 * checks on the dev and prod stages. Every stage synthesised besides the plain dev one (support/stage.ts)
 * is here: a file's first synthesis is its slowest, so the fewer files synthesise, the faster the run.
 */
import { Match } from 'aws-cdk-lib/assertions';
import { tableDefinition } from '../../lib/storage/table';
import { stageTemplate } from './stage-template';
import { devStack, devTemplate, nagFindings, PROD_CONTEXT, PROD_ENV, synthStack } from './support/stage';
import { resourcesOfType } from './support/template';

describe('CompanyDataStack (dev)', () => {
  const template = devTemplate();

  describe('table', () => {
    it('is built from the shared table definition, on demand, with point-in-time recovery', () => {
      template.resourceCountIs('AWS::DynamoDB::GlobalTable', 1);
      template.hasResourceProperties('AWS::DynamoDB::GlobalTable', {
        TableName: Match.absent(),
        BillingMode: 'PAY_PER_REQUEST',
        KeySchema: [
          { AttributeName: tableDefinition.partitionKey, KeyType: 'HASH' },
          { AttributeName: tableDefinition.sortKey, KeyType: 'RANGE' },
        ],
        GlobalSecondaryIndexes: tableDefinition.indexes.map((index) => ({
          IndexName: index.name,
          KeySchema: [
            { AttributeName: index.partitionKey, KeyType: 'HASH' },
            { AttributeName: index.sortKey, KeyType: 'RANGE' },
          ],
          Projection: { ProjectionType: 'ALL' },
        })),
        TimeToLiveSpecification: { AttributeName: tableDefinition.timeToLiveAttribute, Enabled: true },
        Replicas: [
          Match.objectLike({ PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true } }),
        ],
      });
    });

    it('is kept and protected from deletion by default, on every stage', () => {
      template.hasResource('AWS::DynamoDB::GlobalTable', {
        DeletionPolicy: 'Retain',
        UpdateReplacePolicy: 'Retain',
        Properties: { Replicas: [Match.objectLike({ DeletionProtectionEnabled: true })] },
      });
      for (const [, logGroup] of resourcesOfType(template, 'AWS::Logs::LogGroup')) {
        expect(logGroup.DeletionPolicy).toBe('Retain');
      }
    });

    it('is deleted with the stack, like the logs, only on a stage marked disposable', () => {
      const disposable = stageTemplate(synthStack('scratch', {}, { disposable: true }).stack);
      disposable.hasResource('AWS::DynamoDB::GlobalTable', {
        DeletionPolicy: 'Delete',
        Properties: { Replicas: [Match.objectLike({ DeletionProtectionEnabled: false })] },
      });
      for (const [, logGroup] of resourcesOfType(disposable, 'AWS::Logs::LogGroup')) {
        expect(logGroup.DeletionPolicy).toBe('Delete');
      }
    });
  });

  describe('stage', () => {
    it('takes its throttling limits from -c throttleRate / throttleBurst', () => {
      const { stack: throttled } = synthStack('dev', { throttleRate: '5', throttleBurst: '10' });
      stageTemplate(throttled).hasResourceProperties('AWS::ApiGateway::Stage', {
        MethodSettings: Match.arrayWith([
          Match.objectLike({ ResourcePath: '/*', ThrottlingRateLimit: 5, ThrottlingBurstLimit: 10 }),
        ]),
      });
    });

    it('refuses a throttling limit that is not a positive number', () => {
      expect(() => synthStack('dev', { throttleRate: 'fast' })).toThrow(/throttleRate/);
    });
  });

  it('passes the cdk-nag AwsSolutions and Serverless checks with no unacknowledged finding', () => {
    expect(nagFindings(devStack())).toEqual([]);
  });
});

describe('CompanyDataStack (prod)', () => {
  const { stack } = synthStack('prod', PROD_CONTEXT, PROD_ENV);
  const template = stageTemplate(stack);

  it('refuses to synthesise without an explicit account and region', () => {
    expect(() => synthStack('prod', PROD_CONTEXT)).toThrow(/account and region explicitly/);
    expect(() => synthStack('live', PROD_CONTEXT, { production: true })).toThrow(
      /account and region explicitly/,
    );
    expect(() => synthStack('prod', PROD_CONTEXT, { ...PROD_ENV, disposable: true })).toThrow(
      /cannot be disposable/,
    );
  });

  it('refuses to synthesise without an address for its alarms, saying how to give one', () => {
    expect(() => synthStack('prod', {}, PROD_ENV)).toThrow(/production stage: .*-c alarmEmail=/);
    expect(() => synthStack('prod', { alarmEmail: 'nobody' }, PROD_ENV)).toThrow(
      /alarmEmail must be an e-mail/,
    );
  });

  it('subscribes the address to the alarm topic', () => {
    template.hasResourceProperties('AWS::SNS::Subscription', {
      Protocol: 'email',
      Endpoint: 'ops@example.com',
    });
  });

  it('keeps the table and protects it from deletion', () => {
    template.hasResource('AWS::DynamoDB::GlobalTable', {
      DeletionPolicy: 'Retain',
      UpdateReplacePolicy: 'Retain',
      Properties: { Replicas: [Match.objectLike({ DeletionProtectionEnabled: true })] },
    });
  });

  it('keeps the import bucket', () => {
    template.hasResource('AWS::S3::Bucket', { DeletionPolicy: 'Retain' });
  });

  it('keeps the legal entity id key, whatever happens to the stack', () => {
    template.hasResource('AWS::SecretsManager::Secret', {
      DeletionPolicy: 'Retain',
      UpdateReplacePolicy: 'Retain',
    });
  });

  it('keeps its log groups', () => {
    const logGroups = resourcesOfType(template, 'AWS::Logs::LogGroup');
    expect(logGroups.length).toBeGreaterThan(0);
    for (const [, logGroup] of logGroups) expect(logGroup.DeletionPolicy).toBe('Retain');
  });

  it('passes the cdk-nag AwsSolutions and Serverless checks with no unacknowledged finding', () => {
    expect(nagFindings(stack)).toEqual([]);
  });
});

describe('CompanyDataStack: fair use and edge protection (contract §13)', () => {
  const template = devTemplate();

  it('subscribes no address unless given one (a development stage may go without)', () => {
    template.resourceCountIs('AWS::SNS::Subscription', 0);
    const { stack: told } = synthStack('dev', { alarmEmail: 'dev@example.com' });
    stageTemplate(told).hasResourceProperties('AWS::SNS::Subscription', {
      Protocol: 'email',
      Endpoint: 'dev@example.com',
    });
  });
});
