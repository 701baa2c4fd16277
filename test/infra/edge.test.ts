/**
 * The edge sized so that a flood cannot take other tenants down (contract §13, docs/security.md API4):
 * the figures of infra/capacity.ts against the plans sold, and the stage's template against the figures.
 */
import type { Template } from 'aws-cdk-lib/assertions';
import {
  ACCOUNT_CONCURRENCY,
  ADDRESS_RATE,
  AUTHORIZER_MEAN_SECONDS,
  DEFAULT_AUTHORIZER_CONCURRENCY,
  DEFAULT_THROTTLE_BURST,
  DEFAULT_THROTTLE_RATE,
  DEFAULT_WAF_ANONYMOUS_RATE_LIMIT,
  DEFAULT_WAF_PUBLIC_RATE_LIMIT,
  DEFAULT_WAF_RATE_LIMIT,
  DELIVERY_SOURCE_CONCURRENCY,
  FAN_OUT_SOURCE_CONCURRENCY,
  QUEUE_WORKERS,
  ROUTE_MEAN_SECONDS,
  routeConcurrency,
  WAF_WINDOW_SECONDS,
  workerBounds,
} from '../../infra/capacity';
import { ALARM_THRESHOLDS } from '../../infra/alarms';
import { publicPathPattern, WAF_RETRY_AFTER_SECONDS } from '../../infra/waf';
import { routes, workers, type WorkerId } from '../../lib/routes';
import { PLAN_TIERS } from '../../lib/plans/plans';
import { stageTemplate } from './stage-template';
import { devTemplate, synthStack } from './support/stage';

interface CfnResource {
  Type: string;
  Properties: Record<string, unknown>;
}

const IMPORT_CONCURRENCY = 16;
const plans = Object.values(PLAN_TIERS);
const largest = plans.reduce((a, b) => (b.rate > a.rate ? b : a));

/** The dev stage built with these context values (the plain dev stage is devTemplate(), kept for the run). */
const synth = (context: Record<string, unknown>): Template => stageTemplate(synthStack('dev', context).stack);

function resourcesOfType(template: Template, type: string): [string, CfnResource][] {
  return Object.entries(template.findResources(type) as Record<string, CfnResource>);
}

function workerFunction(template: Template, workerId: WorkerId): [string, CfnResource] {
  const found = resourcesOfType(template, 'AWS::Lambda::Function').find(([id]) =>
    id.startsWith(`${workerId}Function`),
  );
  if (!found) throw new Error(`No function for worker ${workerId}`);
  return found;
}

describe('the capacity arithmetic (infra/capacity.ts)', () => {
  it('lets one address send more than the largest plan lets through in the WAF window, rate and burst', () => {
    for (const plan of plans) {
      expect(DEFAULT_WAF_RATE_LIMIT).toBeGreaterThan(plan.rate * WAF_WINDOW_SECONDS + plan.burst);
    }
  });

  it('keeps one address well under the stage ceiling, which holds several of the largest plans', () => {
    expect(DEFAULT_THROTTLE_RATE / ADDRESS_RATE).toBeGreaterThanOrEqual(10);
    expect(DEFAULT_THROTTLE_RATE / largest.rate).toBeGreaterThanOrEqual(10);
    expect(DEFAULT_THROTTLE_BURST).toBeGreaterThanOrEqual(DEFAULT_THROTTLE_RATE);
  });

  it('reserves the authorizer enough executions for every request of the ceiling to be uncached', () => {
    expect(DEFAULT_AUTHORIZER_CONCURRENCY).toBeGreaterThanOrEqual(
      DEFAULT_THROTTLE_RATE * AUTHORIZER_MEAN_SECONDS,
    );
  });

  it("leaves the routes what the ceiling needs of the account's 1,000 executions, workers and authorizer flat out", () => {
    const routesKeep = routeConcurrency(DEFAULT_AUTHORIZER_CONCURRENCY, IMPORT_CONCURRENCY);
    expect(routesKeep).toBeGreaterThanOrEqual(DEFAULT_THROTTLE_RATE * ROUTE_MEAN_SECONDS);
    expect(routesKeep).toBeLessThan(ACCOUNT_CONCURRENCY);
    // AWS keeps at least 100 executions unreserved.
    const reserved =
      DEFAULT_AUTHORIZER_CONCURRENCY +
      Object.entries(workerBounds(IMPORT_CONCURRENCY))
        .filter(([id]) => !QUEUE_WORKERS.includes(id as WorkerId))
        .reduce((sum, [, n]) => sum + n, 0);
    expect(ACCOUNT_CONCURRENCY - reserved).toBeGreaterThanOrEqual(100);
  });

  it("bounds the fan-out's queue source below its reserved concurrency, leaving one for the sweep", () => {
    expect(FAN_OUT_SOURCE_CONCURRENCY).toBeLessThan(workerBounds(IMPORT_CONCURRENCY).fanOutWebhookEvents);
  });
});

describe('the stage (AWS)', () => {
  const template = devTemplate();

  it('bounds every worker: reserved concurrency, or its queue source at most so many at once', () => {
    const bounds = workerBounds(IMPORT_CONCURRENCY);
    for (const workerId of Object.keys(workers) as WorkerId[]) {
      const [, fn] = workerFunction(template, workerId);
      if (QUEUE_WORKERS.includes(workerId)) {
        expect(fn.Properties.ReservedConcurrentExecutions).toBeUndefined();
      } else {
        expect([workerId, fn.Properties.ReservedConcurrentExecutions]).toEqual([workerId, bounds[workerId]]);
      }
    }
    const sources = resourcesOfType(template, 'AWS::Lambda::EventSourceMapping');
    const sourceOf = (workerId: WorkerId) => {
      const [functionId] = workerFunction(template, workerId);
      return sources.filter(([, s]) => JSON.stringify(s.Properties.FunctionName).includes(`"${functionId}"`));
    };
    expect(sourceOf('deliverWebhooks').map(([, s]) => s.Properties.ScalingConfig)).toEqual([
      { MaximumConcurrency: DELIVERY_SOURCE_CONCURRENCY },
    ]);
    expect(sourceOf('fanOutWebhookEvents').map(([, s]) => s.Properties.ScalingConfig)).toEqual([
      { MaximumConcurrency: FAN_OUT_SOURCE_CONCURRENCY },
    ]);
    for (const [, source] of sources) expect(source.Properties.ScalingConfig).toBeDefined();
  });

  it('keeps the access log 30 days and the WAF log a year (docs/security.md, retention)', () => {
    const groups = resourcesOfType(template, 'AWS::Logs::LogGroup');
    const [, access] = groups.find(([id]) => id.startsWith('AccessLogs'))!;
    expect(access.Properties.RetentionInDays).toBe(30);
    const [, waf] = groups.find(([, g]) => String(g.Properties.LogGroupName).startsWith('aws-waf-logs-'))!;
    expect(waf.Properties.RetentionInDays).toBe(365);
  });

  it('has the import wait for a slot when another run holds its steps, instead of failing', () => {
    const machines = resourcesOfType(template, 'AWS::StepFunctions::StateMachine');
    expect(machines.length).toBeGreaterThan(0);
    for (const [, machine] of machines) {
      const definition = JSON.stringify(machine.Properties.DefinitionString);
      const tasks = definition.match(/\\"Type\\":\\"Task\\"/g) ?? [];
      const throttleRetries = definition.match(/Lambda\.TooManyRequestsException/g) ?? [];
      expect(throttleRetries.length).toBeGreaterThanOrEqual(tasks.length);
    }
  });

  it('takes the import concurrency of -c importConcurrency as the bound of its parallel steps', () => {
    const told = synth({ importConcurrency: '8' });
    expect(workerFunction(told, 'importPartition')[1].Properties.ReservedConcurrentExecutions).toBe(8);
    expect(workerFunction(told, 'lookalikesShard')[1].Properties.ReservedConcurrentExecutions).toBe(8);
  });

  it('answers its rate rules itself with 429 THROTTLED, Retry-After and the contract body', () => {
    const [[, acl]] = resourcesOfType(template, 'AWS::WAFv2::WebACL') as [[string, CfnResource]];
    const rules = acl.Properties.Rules as {
      Name: string;
      Action?: { Block?: { CustomResponse?: Record<string, unknown> } };
      Statement: Record<string, unknown>;
    }[];
    const rateRules = rules.filter((r) => 'RateBasedStatement' in r.Statement);
    expect(rateRules.map((r) => r.Name)).toEqual(['RatePerIpAnonymous', 'RatePerIpPublic', 'RatePerIp']);
    for (const rule of rateRules) {
      expect(rule.Action?.Block?.CustomResponse).toEqual({
        ResponseCode: 429,
        CustomResponseBodyKey: 'throttled',
        ResponseHeaders: [
          { Name: 'Retry-After', Value: String(WAF_RETRY_AFTER_SECONDS) },
          { Name: 'Cache-Control', Value: 'no-store' },
        ],
      });
    }
    // The managed groups block with the gateway's WAF_FILTERED answer: 403 FORBIDDEN (stack-routes.test.ts).
    for (const rule of rules.filter((r) => 'ManagedRuleGroupStatement' in r.Statement)) {
      expect(rule.Action).toBeUndefined();
    }
    const bodies = acl.Properties.CustomResponseBodies as Record<
      string,
      { ContentType: string; Content: string }
    >;
    expect(bodies['throttled']!.ContentType).toBe('APPLICATION_JSON');
    expect(JSON.parse(bodies['throttled']!.Content)).toEqual({
      message: 'Too many requests',
      code: 'THROTTLED',
    });
    expect(DEFAULT_WAF_ANONYMOUS_RATE_LIMIT).toBeLessThan(DEFAULT_WAF_RATE_LIMIT);
    expect(DEFAULT_WAF_PUBLIC_RATE_LIMIT).toBeLessThan(DEFAULT_WAF_RATE_LIMIT);
  });
});

describe('the public routes, as WAF sees their paths', () => {
  const publicPaths = Object.values(routes)
    .filter((route) => route.scope === null)
    .map((route) => route.path);
  const pattern = new RegExp(publicPathPattern(publicPaths));

  it.each(['/v1/health', '/v1/openapi.json', '/v1/docs'])('match %s, with or without the stage', (path) => {
    expect(publicPaths).toContain(path);
    expect(pattern.test(`/dev${path}`)).toBe(true);
    expect(pattern.test(path)).toBe(true);
  });

  it.each(['/dev/v1/companies/BE/0403170701', '/dev/v1/healthz', '/dev/v1/openapi-json', '/dev/x/v1/docs'])(
    'do not match %s',
    (path) => {
      expect(pattern.test(path)).toBe(false);
    },
  );
});

/** A rule body naming its log group by reference (`Fn::Join` around a `Ref`), with a name in its place. */
function withLogGroupName(body: unknown): string {
  if (typeof body === 'string') return body;
  const [, parts] = (body as { 'Fn::Join': [string, unknown[]] })['Fn::Join'];
  return parts.map((part) => (typeof part === 'string' ? part : 'access-log-group')).join('');
}

describe('contact harvesting (docs/security.md API6)', () => {
  const template = devTemplate();
  const contactPaths = [routes.getListContacts.path, routes.getCompanyContacts.path];

  it('counts the pages of both contact routes, for the stage and per account (the account as dimension)', () => {
    const filters = resourcesOfType(template, 'AWS::Logs::MetricFilter').filter(([, f]) =>
      String(f.Properties.FilterPattern).includes('contacts'),
    );
    expect(filters).toHaveLength(2);
    for (const [, filter] of filters) {
      for (const path of contactPaths) expect(filter.Properties.FilterPattern).toContain(`"${path}"`);
      expect(filter.Properties.FilterPattern).toContain('($.status = "200")');
    }
    const transformations = filters.flatMap(
      ([, f]) => f.Properties.MetricTransformations as { MetricName: string; Dimensions?: unknown }[],
    );
    expect(transformations.find((t) => t.MetricName === 'ContactPagesByAccount')?.Dimensions).toEqual([
      { Key: 'accountId', Value: '$.accountId' },
    ]);
  });

  it('raises an alarm when any one account is answered the threshold of contact pages in 5 minutes', () => {
    const [[ruleId, rule]] = resourcesOfType(template, 'AWS::CloudWatch::InsightRule') as [
      [string, CfnResource],
    ];
    const body = JSON.parse(withLogGroupName(rule.Properties.RuleBody)) as {
      LogFormat: string;
      Contribution: { Keys: string[]; Filters: { Match: string; In: string[] }[] };
      AggregateOn: string;
    };
    expect(body.LogFormat).toBe('JSON');
    expect(body.Contribution.Keys).toEqual(['$.accountId']);
    expect(body.Contribution.Filters).toEqual([
      { Match: '$.resource', In: contactPaths },
      { Match: '$.status', In: ['200'] },
    ]);
    expect(body.AggregateOn).toBe('Count');
    const alarm = resourcesOfType(template, 'AWS::CloudWatch::Alarm').find(([, a]) =>
      JSON.stringify(a.Properties.Metrics ?? []).includes('INSIGHT_RULE_METRIC'),
    );
    expect(alarm).toBeDefined();
    const [, { Properties }] = alarm!;
    expect(Properties.Threshold).toBe(ALARM_THRESHOLDS.contactPagesPerAccount);
    expect(Properties.ComparisonOperator).toBe('GreaterThanOrEqualToThreshold');
    expect(Properties.AlarmActions).toHaveLength(1);
    const metrics = JSON.stringify(Properties.Metrics);
    expect(metrics).toContain('MaxContributorValue');
    expect(metrics).toContain(ruleId);
    expect(metrics).toContain('"Period":300');
    expect(ALARM_THRESHOLDS.contactPagesPerAccount).toBeLessThan(ALARM_THRESHOLDS.contactPages);
  });
});
