/**
 * The dev stage's other workers: the legal entity id key the import reads, webhook delivery (infra/
 * webhooks.ts, contract §12) and the workers run on a schedule.
 */
import { Match } from 'aws-cdk-lib/assertions';
import { type Worker, workers } from '../../lib/routes';
import { ATTEMPTS_PER_ENDPOINT } from '../../lib/webhooks/attempts';
import { devTemplate } from './support/stage';
import { actionsOf, type CfnResource, resourcesOfType, workerFunctionId } from './support/template';

describe('CompanyDataStack (dev)', () => {
  const template = devTemplate();

  describe('legal entity id key', () => {
    it('is generated once per stage, never rotated, and its ARN is an output for the import', () => {
      template.resourceCountIs('AWS::SecretsManager::Secret', 1);
      template.hasResourceProperties('AWS::SecretsManager::Secret', {
        GenerateSecretString: Match.objectLike({ PasswordLength: 64, ExcludePunctuation: true }),
      });
      template.resourceCountIs('AWS::SecretsManager::RotationSchedule', 0);
      template.hasOutput('LegalEntitySecretArn', {});
    });

    it("is readable by the import engine's partition workers only, which are told where it is", () => {
      const functionIds = Object.keys(template.findResources('AWS::Lambda::Function'));
      const readers = functionIds.filter((id) =>
        actionsOf(template, id).some((a) => a.startsWith('secretsmanager:')),
      );
      expect(readers).toEqual([workerFunctionId(template, 'importPartition')]);
      const reader = template.findResources('AWS::Lambda::Function')[readers[0]!] as CfnResource;
      expect(reader.Properties).toMatchObject({
        Environment: {
          Variables: { LEGAL_ENTITY_SECRET_ARN: { Ref: expect.stringMatching(/^LegalEntitySecret/) } },
        },
      });
    });
  });

  describe('webhook delivery (contract §12)', () => {
    const queues = () => resourcesOfType(template, 'AWS::SQS::Queue');
    const queueId = (prefix: string) => {
      const found = queues().find(([id]) => id.startsWith(prefix));
      if (!found) throw new Error(`No queue ${prefix}`);
      return found[0];
    };
    const sourcesOf = (workerId: string) =>
      resourcesOfType(template, 'AWS::Lambda::EventSourceMapping').filter(
        ([, mapping]) =>
          JSON.stringify(mapping.Properties.FunctionName) ===
          JSON.stringify({ Ref: workerFunctionId(template, workerId) }),
      );

    it('sends delivery jobs through an encrypted queue to the delivery function, a dead-letter queue after 5 receives', () => {
      const deliveries = queueId('WebhooksDeliveries');
      template.hasResourceProperties('AWS::SQS::Queue', {
        SqsManagedSseEnabled: true,
        RedrivePolicy: {
          deadLetterTargetArn: { 'Fn::GetAtt': [queueId('WebhooksDeadLetters'), 'Arn'] },
          maxReceiveCount: 5,
        },
      });
      const [[, mapping]] = sourcesOf('deliverWebhooks') as [[string, CfnResource]];
      expect(mapping.Properties).toMatchObject({
        EventSourceArn: { 'Fn::GetAtt': [deliveries, 'Arn'] },
        FunctionResponseTypes: ['ReportBatchItemFailures'],
      });
    });

    it('keeps accounts apart on AWS: a standard (fair) delivery queue, each job its own delay, and a timeout that outlasts a batch', () => {
      // Jobs are grouped by account (lib/webhooks/sqs-queue.ts): on a standard queue that makes a fair
      // queue. A FIFO queue would take no per-message delay (the retries') and hold a group behind a job.
      const deliveries = queueId('WebhooksDeliveries');
      expect(template.toJSON().Resources[deliveries].Properties.FifoQueue).toBeUndefined();
      const [[, mapping]] = sourcesOf('deliverWebhooks') as [[string, CfnResource]];
      const batch = mapping.Properties.BatchSize as number;
      // A batch of one endpoint's jobs takes its lane in rounds of ATTEMPTS_PER_ENDPOINT, 10 s at most each.
      const rounds = Math.ceil(batch / ATTEMPTS_PER_ENDPOINT);
      const fn = template.toJSON().Resources[workerFunctionId(template, 'deliverWebhooks')];
      expect(fn.Properties.Timeout).toBeGreaterThanOrEqual(rounds * 10 + 10);
    });

    it('announces new events to the fan-out through a FIFO queue the import and the sweep send to', () => {
      const fanOut = queueId('WebhooksFanOut');
      expect(template.toJSON().Resources[fanOut].Properties).toMatchObject({
        FifoQueue: true,
        SqsManagedSseEnabled: true,
      });
      const [[, mapping]] = sourcesOf('fanOutWebhookEvents') as [[string, CfnResource]];
      expect(mapping.Properties).toMatchObject({ EventSourceArn: { 'Fn::GetAtt': [fanOut, 'Arn'] } });
      for (const workerId of ['importPartition', 'fanOutWebhookEvents']) {
        const fn = template.toJSON().Resources[workerFunctionId(template, workerId)];
        expect(fn.Properties.Environment.Variables.FAN_OUT_QUEUE_URL).toEqual({ Ref: fanOut });
        expect(actionsOf(template, workerFunctionId(template, workerId))).toContain('sqs:SendMessage');
      }
    });

    it('raises alarms on a dead-lettered job and on the share of failed attempts', () => {
      const alarms = resourcesOfType(template, 'AWS::CloudWatch::Alarm').map(([id]) => id);
      expect(alarms.filter((id) => id.startsWith('WebhooksDeliveriesDeadLettered'))).toHaveLength(1);
      expect(alarms.filter((id) => id.startsWith('WebhooksDeliveryFailureRate'))).toHaveLength(1);
    });
  });

  it('runs each worker on its schedule and outputs its name for an operator', () => {
    const scheduled = Object.entries(workers as Record<string, Worker>).filter(([, w]) => w.schedule);
    // The full lookalike job is a state machine on its schedule (the import engine's tests above).
    expect(scheduled.map(([id]) => id)).toEqual([
      'evaluateSmartLists',
      'cleanUpLists',
      'fanOutWebhookEvents',
    ]);
    for (const [workerId, worker] of scheduled) {
      const { weekDay, hour, minute } = worker.schedule!;
      // EventBridge cron: minute hour day-of-month month day-of-week year ('?' in one of the day fields).
      const days = weekDay ? `? * ${weekDay}` : '* * ?';
      template.hasResourceProperties('AWS::Events::Rule', {
        ScheduleExpression: `cron(${minute} ${hour ?? '*'} ${days} *)`,
        Targets: [Match.objectLike({ RetryPolicy: { MaximumRetryAttempts: 2 } })],
      });
      template.hasOutput(`${workerId}FunctionName`, {});
    }
  });
});
