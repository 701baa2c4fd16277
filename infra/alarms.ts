/**
 * What an operator is told about, per stage: one SNS topic, and alarms on what callers feel (the API's
 * 5xx rate and p99 latency), on each function (errors or throttles: one alarm that names it, beside the
 * function in its own template), on the table (throttled requests, system errors), on the import at
 * scale (failed runs, files whose event started none), and on abuse: a
 * spike of 401/403 answers (token guessing, a leaked token tried everywhere) and of contacts handed out
 * (bulk collection of names and job titles) on either contact route, for the stage and for any one
 * account, counted from the access log. `-c alarmEmail=` subscribes
 * an address to the topic (`AlarmTopicArn` output); a production stage needs one.
 */
import { CfnOutput, Duration, Validations } from 'aws-cdk-lib';
import type { RestApi } from 'aws-cdk-lib/aws-apigateway';
import {
  Alarm,
  CfnInsightRule,
  ComparisonOperator,
  MathExpression,
  Metric,
  TreatMissingData,
  type IMetric,
} from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import type { TableV2 } from 'aws-cdk-lib/aws-dynamodb';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { FilterPattern, MetricFilter, type ILogGroup } from 'aws-cdk-lib/aws-logs';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import type { IStateMachine } from 'aws-cdk-lib/aws-stepfunctions';
import { Topic, type ITopic } from 'aws-cdk-lib/aws-sns';
import { Construct } from 'constructs';
import { routes } from '../lib/routes';
import type { StorageAction } from '../lib/storage/access';

/** The alarm thresholds, in one place (README "Operations" repeats them). */
export const ALARM_THRESHOLDS = {
  /** Share of API answers that are 5xx, over 5 minutes. */
  serverErrorRate: 0.01,
  /** p99 of the API's latency, ms, over 5 minutes, three periods in a row. */
  p99LatencyMs: 1500,
  /** Any Lambda error or throttle, any DynamoDB throttle or system error, in 5 minutes. */
  count: 1,
  /** 401 and 403 answers in 5 minutes: far more than clients with a wrong scope or an expired token make. */
  authFailures: 100,
  /** Pages of contacts (either contact route) answered in 5 minutes, all accounts together. */
  contactPages: 300,
  /**
   * Pages of contacts one account is answered in 5 minutes: a list's pages hold up to 500 contacts, so
   * 100 pages are up to 50,000 names and job titles, far more than a person reads or a sync of changes
   * needs.
   */
  contactPagesPerAccount: 100,
} as const;

/** DynamoDB publishes SystemErrors per operation: these are the ones the functions make. */
const OPERATIONS: ReadonlyArray<StorageAction | 'TransactWriteItems'> = [
  'GetItem',
  'BatchGetItem',
  'Query',
  'PutItem',
  'UpdateItem',
  'DeleteItem',
  'BatchWriteItem',
  'TransactWriteItems',
];

const PERIOD = Duration.minutes(5);

export interface StageAlarmsProps {
  stage: string;
  api: RestApi;
  table: TableV2;
  /** The API's access log (one JSON line per request, infra/api.ts): the abuse metrics are counted from it. */
  accessLogs: ILogGroup;
  /** An address subscribed to the topic. */
  alarmEmail?: string;
}

/** Where an alarm goes: the stage (named in its description) and its topic. */
export interface AlarmTarget {
  stage: string;
  topic: ITopic;
}

/**
 * An alarm at or over `threshold` for `periods` periods in a row, missing data not breaching, that tells
 * the stage's topic when it goes off and when it is over.
 */
export function addAlarm(
  scope: Construct,
  id: string,
  target: AlarmTarget,
  { metric, threshold, periods = 1, description = id }: AlarmSpec,
): Alarm {
  const created = new Alarm(scope, id, {
    alarmDescription: `${target.stage}: ${description}`,
    metric,
    threshold,
    evaluationPeriods: periods,
    comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
    treatMissingData: TreatMissingData.NOT_BREACHING,
  });
  const action = new SnsAction(target.topic);
  created.addAlarmAction(action);
  created.addOkAction(action);
  return created;
}

export interface AlarmSpec {
  metric: IMetric;
  threshold: number;
  periods?: number;
  description?: string;
}

/**
 * One alarm per function, on its errors and throttles together (metric math, each missing point read as
 * 0): the alarm, its description and its metric's label name the function, so the notification says
 * which one failed, and a function costs one alarm.
 */
export function addFunctionAlarm(scope: Construct, name: string, fn: IFunction, target: AlarmTarget): Alarm {
  return addAlarm(scope, 'Failures', target, {
    metric: new MathExpression({
      expression: 'FILL(errors, 0) + FILL(throttles, 0)',
      usingMetrics: {
        errors: fn.metricErrors({ period: PERIOD, statistic: 'Sum' }),
        throttles: fn.metricThrottles({ period: PERIOD, statistic: 'Sum' }),
      },
      label: `${name}: errors and throttles`,
      period: PERIOD,
    }),
    threshold: ALARM_THRESHOLDS.count,
    description: `function ${name} failed or was throttled`,
  });
}

export class StageAlarms extends Construct {
  readonly topic: Topic;
  /** Where the functions' alarms (addFunctionAlarm) and the stage's go. */
  readonly target: AlarmTarget;

  constructor(scope: Construct, id: string, props: StageAlarmsProps) {
    super(scope, id);
    this.topic = new Topic(this, 'Topic', {
      displayName: `company-data ${props.stage} alarms`,
      enforceSSL: true,
    });
    Validations.of(this.topic).acknowledge({
      id: 'AwsSolutions-SNS2',
      reason:
        'The topic carries alarm state changes only (alarm name, metric, threshold), no customer data; ' +
        'CloudWatch cannot publish to a topic under the AWS-managed SNS key, and a customer key per stage ' +
        'would cost more than what it protects.',
    });
    if (props.alarmEmail) {
      this.topic.addSubscription(new EmailSubscription(props.alarmEmail));
      Validations.of(this.topic).acknowledge({
        id: 'Serverless-SNSRedrivePolicy',
        reason:
          'The one subscription is an operator e-mail address for alarm state changes: an undelivered e-mail ' +
          'would sit in a dead-letter queue nobody reads, while the alarm itself stays visible in CloudWatch.',
      });
    }
    this.target = { stage: props.stage, topic: this.topic };
    const alarm = (name: string, metric: IMetric, threshold: number, periods = 1, description = name) =>
      addAlarm(this, name, this.target, { metric, threshold, periods, description });

    const { api, table } = props;
    alarm(
      'Api5xxRate',
      api.metricServerError({ statistic: 'Average', period: PERIOD }),
      ALARM_THRESHOLDS.serverErrorRate,
      1,
      'share of 5xx answers at or over 1 % in 5 minutes',
    );
    alarm(
      'ApiP99Latency',
      api.metricLatency({ statistic: 'p99', period: PERIOD }),
      ALARM_THRESHOLDS.p99LatencyMs,
      3,
      'p99 latency at or over 1.5 s for 15 minutes',
    );
    const tableMetric = (metricName: string, operation?: string) =>
      new Metric({
        namespace: 'AWS/DynamoDB',
        metricName,
        dimensionsMap: { TableName: table.tableName, ...(operation ? { Operation: operation } : {}) },
        statistic: 'Sum',
        period: PERIOD,
      });
    alarm(
      'TableThrottles',
      new MathExpression({
        expression: 'r + w',
        usingMetrics: { r: tableMetric('ReadThrottleEvents'), w: tableMetric('WriteThrottleEvents') },
        label: 'throttled read and write events',
        period: PERIOD,
      }),
      ALARM_THRESHOLDS.count,
    );
    alarm(
      'TableSystemErrors',
      new MathExpression({
        expression: OPERATIONS.map((_, i) => `e${i}`).join(' + '),
        usingMetrics: Object.fromEntries(
          OPERATIONS.map((op, i) => [`e${i}`, tableMetric('SystemErrors', op)]),
        ),
        label: 'DynamoDB system errors',
        period: PERIOD,
      }),
      ALARM_THRESHOLDS.count,
    );

    // The abuse metrics, counted from the access log's JSON lines.
    const namespace = `CompanyData/${props.stage}`;
    const accessLogMetric = (name: string, metricName: string, pattern: string) =>
      new MetricFilter(this, name, {
        logGroup: props.accessLogs,
        metricNamespace: namespace,
        metricName,
        filterPattern: FilterPattern.literal(pattern),
        metricValue: '1',
        defaultValue: 0,
      }).metric({ statistic: 'Sum', period: PERIOD });
    alarm(
      'AuthFailures',
      accessLogMetric('AuthFailuresFilter', 'AuthFailures', '{ ($.status = "401") || ($.status = "403") }'),
      ALARM_THRESHOLDS.authFailures,
      1,
      `${ALARM_THRESHOLDS.authFailures} or more 401/403 answers in 5 minutes (token guessing or a leaked token)`,
    );
    // Contact harvesting (docs/security.md API6): the pages of either contact route answered.
    const contactRoutes = [routes.getListContacts.path, routes.getCompanyContacts.path];
    const contactPages = `{ (${contactRoutes.map((path) => `($.resource = "${path}")`).join(' || ')}) && ($.status = "200") }`;
    alarm(
      'ContactPages',
      accessLogMetric('ContactPagesFilter', 'ContactPages', contactPages),
      ALARM_THRESHOLDS.contactPages,
      1,
      `${ALARM_THRESHOLDS.contactPages} or more pages of contacts in 5 minutes (bulk collection of contact data)`,
    );
    // The same per account: a metric with the account as its dimension (for graphs and a look at who)…
    new MetricFilter(this, 'ContactPagesByAccountFilter', {
      logGroup: props.accessLogs,
      metricNamespace: namespace,
      metricName: 'ContactPagesByAccount',
      filterPattern: FilterPattern.literal(contactPages),
      metricValue: '1',
      dimensions: { accountId: '$.accountId' },
    });
    // …and, since an alarm watches one series and accounts come and go, a Contributor Insights rule over
    // the same lines keyed by account, whose largest contributor the alarm watches: it fires when any one
    // account is answered that many pages, and the rule's report names it.
    const byAccount = new CfnInsightRule(this, 'ContactPagesByAccountRule', {
      ruleName: `company-data-${props.stage}-contact-pages-by-account`,
      ruleState: 'ENABLED',
      ruleBody: JSON.stringify({
        Schema: { Name: 'CloudWatchLogRule', Version: 1 },
        LogGroupNames: [props.accessLogs.logGroupName],
        LogFormat: 'JSON',
        Contribution: {
          Keys: ['$.accountId'],
          Filters: [
            { Match: '$.resource', In: contactRoutes },
            { Match: '$.status', In: ['200'] },
          ],
        },
        AggregateOn: 'Count',
      }),
    });
    alarm(
      'ContactPagesPerAccount',
      new MathExpression({
        expression: `INSIGHT_RULE_METRIC("${byAccount.attrRuleName}", "MaxContributorValue")`,
        usingMetrics: {},
        label: 'contact pages of the account answered the most',
        period: PERIOD,
      }),
      ALARM_THRESHOLDS.contactPagesPerAccount,
      1,
      `one account was answered ${ALARM_THRESHOLDS.contactPagesPerAccount} or more pages of contacts in 5 ` +
        `minutes (bulk collection; the rule ${byAccount.ruleName} names it)`,
    );

    new CfnOutput(scope, 'AlarmTopicArn', {
      value: this.topic.topicArn,
      description: 'Subscribe here to be told about alarms of this stage',
    });
  }

  /** The import at scale: a run that failed, and a file whose event never started one. */
  watchImports({
    stateMachine,
    undeliveredEvents,
  }: {
    stateMachine: IStateMachine;
    undeliveredEvents: IQueue;
  }) {
    const alarm = (name: string, metric: IMetric, threshold: number, periods: number, description: string) =>
      addAlarm(this, name, this.target, { metric, threshold, periods, description });
    alarm(
      'ImportRunsFailed',
      new MathExpression({
        expression: 'f + t + a',
        usingMetrics: {
          f: stateMachine.metricFailed({ statistic: 'Sum', period: PERIOD }),
          t: stateMachine.metricTimedOut({ statistic: 'Sum', period: PERIOD }),
          a: stateMachine.metricAborted({ statistic: 'Sum', period: PERIOD }),
        },
        label: 'import runs failed, timed out or aborted',
        period: PERIOD,
      }),
      ALARM_THRESHOLDS.count,
      1,
      'an import run failed, timed out or was aborted (its file is still under incoming/)',
    );
    alarm(
      'ImportEventsUndelivered',
      undeliveredEvents.metricApproximateNumberOfMessagesVisible({ statistic: 'Maximum', period: PERIOD }),
      ALARM_THRESHOLDS.count,
      1,
      'a dropped file did not start an import run (its event is in the undelivered-events queue)',
    );
  }
}
