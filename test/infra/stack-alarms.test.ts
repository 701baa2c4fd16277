/**
 * The dev stage's alarms (infra/alarms.ts): one topic, told when any alarm goes off and when it is over;
 * the API, every function and the table watched.
 */
import { Match } from 'aws-cdk-lib/assertions';
import { ALARM_THRESHOLDS } from '../../infra/alarms';
import { routes, workers } from '../../lib/routes';
import { devTemplate } from './support/stage';
import { type CfnResource, resourcesOfType } from './support/template';

describe('CompanyDataStack (dev)', () => {
  const template = devTemplate();

  describe('alarms', () => {
    const alarms = resourcesOfType(template, 'AWS::CloudWatch::Alarm').map(([, a]) => a.Properties);
    const [[topicId]] = resourcesOfType(template, 'AWS::SNS::Topic') as [[string, CfnResource]];

    it('has one SNS topic for the stage, in the outputs, that only takes TLS', () => {
      template.resourceCountIs('AWS::SNS::Topic', 1);
      template.hasOutput('AlarmTopicArn', { Value: { Ref: topicId } });
      template.hasResourceProperties('AWS::SNS::TopicPolicy', {
        PolicyDocument: {
          Statement: Match.arrayWith([
            Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
          ]),
        },
      });
    });

    it('tells the topic when any alarm goes off and when it is over', () => {
      expect(alarms.length).toBeGreaterThan(0);
      for (const alarm of alarms) {
        expect(alarm.AlarmActions).toEqual([{ Ref: topicId }]);
        expect(alarm.OKActions).toEqual([{ Ref: topicId }]);
        expect(alarm.TreatMissingData).toBe('notBreaching');
      }
    });

    it('watches the API: 5xx rate and p99 latency', () => {
      expect(alarms).toEqual(
        expect.arrayContaining([
          expect.objectContaining({
            Namespace: 'AWS/ApiGateway',
            MetricName: '5XXError',
            Statistic: 'Average',
            Threshold: ALARM_THRESHOLDS.serverErrorRate,
          }),
          expect.objectContaining({
            Namespace: 'AWS/ApiGateway',
            MetricName: 'Latency',
            ExtendedStatistic: 'p99',
            Threshold: ALARM_THRESHOLDS.p99LatencyMs,
          }),
        ]),
      );
    });

    it('watches every function with one alarm on its errors and throttles that names it', () => {
      const functionIds = Object.keys(template.findResources('AWS::Lambda::Function'));
      const watched = alarms
        .map((alarm) => {
          const metrics = (alarm.Metrics ?? []) as {
            Id: string;
            Expression?: string;
            Label?: string;
            MetricStat?: { Metric: { Namespace: string; MetricName: string; Dimensions: unknown[] } };
          }[];
          const stats = metrics.filter((m) => m.MetricStat?.Metric.Namespace === 'AWS/Lambda');
          if (stats.length === 0) return undefined;
          expect(stats.map((m) => m.MetricStat!.Metric.MetricName).sort()).toEqual(['Errors', 'Throttles']);
          const [fn, other] = new Set(stats.map((m) => JSON.stringify(m.MetricStat!.Metric.Dimensions)));
          expect(other).toBeUndefined();
          expect(metrics.find((m) => m.Expression)).toMatchObject({
            Expression: 'FILL(errors, 0) + FILL(throttles, 0)',
          });
          expect(alarm).toMatchObject({ Threshold: ALARM_THRESHOLDS.count });
          return { fn: (JSON.parse(fn!) as { Value: { Ref: string } }[])[0]!.Value.Ref, alarm };
        })
        .filter((w) => w !== undefined);
      expect(watched.map((w) => w.fn).sort()).toEqual([...functionIds].sort());
      // The notification names the function: its route id, worker id, or the authorizer.
      const names = [...Object.keys(routes), ...Object.keys(workers), 'authorizer'];
      for (const { fn, alarm } of watched) {
        const name = names.find(
          (n) => alarm.AlarmDescription === `dev: function ${n} failed or was throttled`,
        );
        expect([fn, name && (fn.startsWith(`${name}Function`) || name === 'authorizer')]).toEqual([fn, true]);
      }
    });

    it('watches the table for throttled requests and system errors', () => {
      const metricsOf = (alarm: Record<string, unknown>) =>
        ((alarm.Metrics as { MetricStat?: { Metric: { MetricName: string } } }[] | undefined) ?? [])
          .map((m) => m.MetricStat?.Metric.MetricName)
          .filter(Boolean);
      const tableAlarms = alarms.map(metricsOf).filter((names) => names.length > 0);
      expect(tableAlarms).toEqual(
        expect.arrayContaining([
          ['ReadThrottleEvents', 'WriteThrottleEvents'],
          expect.arrayContaining(['SystemErrors']),
        ]),
      );
    });
  });
});
