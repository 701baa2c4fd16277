/**
 * The dev stage at the edge (infra/api.ts, infra/waf.ts, contract §13): the stage's compression,
 * throttling and logs, and fair use: usage plans per tier, API keys from the authorizer, the web ACL and
 * its logs, the alarms on refused and contact-page requests. Other stages' limits: stack-stages.test.ts.
 */
import { Match } from 'aws-cdk-lib/assertions';
import { ALARM_THRESHOLDS } from '../../infra/alarms';
import { DEFAULT_THROTTLE_BURST, DEFAULT_THROTTLE_RATE } from '../../infra/api';
import {
  DEFAULT_WAF_ANONYMOUS_RATE_LIMIT,
  DEFAULT_WAF_PUBLIC_RATE_LIMIT,
  DEFAULT_WAF_RATE_LIMIT,
  MANAGED_RULE_GROUPS,
} from '../../infra/waf';
import { MIN_COMPRESSION_BYTES } from '../../lib/http/endpoint';
import { PLAN_TIERS } from '../../lib/plans/plans';
import { routes } from '../../lib/routes';
import { BEARER_HEADER_PATTERN } from '../../lib/tokens/token-format';
import { devTemplate } from './support/stage';
import {
  allRoutes,
  type CfnResource,
  resourcesOfType,
  routeFunctionId,
  routeMethod,
} from './support/template';

describe('CompanyDataStack (dev)', () => {
  const template = devTemplate();

  describe('stage', () => {
    it('compresses answers of 1 KB or more for callers that accept it (as the local gateway)', () => {
      template.hasResourceProperties('AWS::ApiGateway::RestApi', {
        MinimumCompressionSize: MIN_COMPRESSION_BYTES,
      });
      expect(MIN_COMPRESSION_BYTES).toBe(1024);
    });

    it('is named after the CDK stage, throttled, with JSON access logs and error execution logs', () => {
      template.hasResourceProperties('AWS::ApiGateway::Stage', {
        StageName: 'dev',
        AccessLogSetting: { DestinationArn: Match.anyValue(), Format: Match.stringLikeRegexp('"requestId"') },
        TracingEnabled: true,
        MethodSettings: Match.arrayWith([
          Match.objectLike({
            HttpMethod: '*',
            ResourcePath: '/*',
            LoggingLevel: 'ERROR',
            MetricsEnabled: true,
            ThrottlingRateLimit: DEFAULT_THROTTLE_RATE,
            ThrottlingBurstLimit: DEFAULT_THROTTLE_BURST,
          }),
        ]),
      });
    });

    it('logs each request as JSON with the caller, authorizer errors, integration latency and error type', () => {
      const [[, stageResource]] = resourcesOfType(template, 'AWS::ApiGateway::Stage') as [
        [string, CfnResource],
      ];
      const format = JSON.parse(
        (stageResource.Properties.AccessLogSetting as { Format: string }).Format,
      ) as Record<string, string>;
      expect(format).toMatchObject({
        requestId: '$context.requestId',
        caller: '$context.authorizer.principalId',
        status: '$context.status',
        integrationLatencyMs: '$context.integration.latency',
        errorType: '$context.error.responseType',
        authorizerError: '$context.authorizer.error',
      });
      expect(JSON.stringify(format)).not.toMatch(/authorization|identity\.apiKey\b/i);
    });

    it('gives the public routes no ceiling the whole world shares (the WAF limits them per address)', () => {
      const [[, stageResource]] = resourcesOfType(template, 'AWS::ApiGateway::Stage') as [
        [string, CfnResource],
      ];
      const settings = stageResource.Properties.MethodSettings as Record<string, unknown>[];
      expect(settings.map((m) => m.ResourcePath)).toEqual(['/*']);
    });

    it('traces the API and every function with X-Ray', () => {
      for (const [, fn] of resourcesOfType(template, 'AWS::Lambda::Function')) {
        expect(fn.Properties.TracingConfig).toEqual({ Mode: 'Active' });
      }
    });

    it('names the API after the stage', () => {
      template.hasResourceProperties('AWS::ApiGateway::RestApi', { Name: 'company-data-dev' });
    });
  });
});

describe('CompanyDataStack: fair use and edge protection (contract §13)', () => {
  const template = devTemplate();

  it("takes each request's API key from the authorizer, never from the caller", () => {
    template.hasResourceProperties('AWS::ApiGateway::RestApi', { ApiKeySourceType: 'AUTHORIZER' });
  });

  it('counts every route that needs a token against a usage plan, and no public route', () => {
    for (const route of allRoutes) {
      expect([route.path, routeMethod(template, route).Properties.ApiKeyRequired ?? false]).toEqual([
        route.path,
        route.scope !== null,
      ]);
    }
  });

  it('has one usage plan per tier on the stage, with its rate, burst and daily quota', () => {
    const plans = resourcesOfType(template, 'AWS::ApiGateway::UsagePlan').map(([, plan]) => plan.Properties);
    expect(plans).toHaveLength(Object.keys(PLAN_TIERS).length);
    for (const [tier, figures] of Object.entries(PLAN_TIERS)) {
      // Named `<table name>:<tier>` (a join of the table's Ref and the tier).
      const plan = plans.find((p) => JSON.stringify(p.UsagePlanName).includes(`"${tier}"`));
      expect(plan).toMatchObject({
        Throttle: { RateLimit: figures.rate, BurstLimit: figures.burst },
        Quota: { Limit: figures.dailyQuota, Period: 'DAY' },
        ApiStages: [expect.objectContaining({ Stage: expect.anything() })],
      });
    }
    expect(PLAN_TIERS.standard).toEqual({ rate: 25, burst: 50, dailyQuota: 100_000 });
  });

  it("lets GET /v1/usage read its plans' usage and nothing else of API Gateway", () => {
    const id = routeFunctionId(template, routes.getUsage);
    const fn = template.findResources('AWS::Lambda::Function')[id] as CfnResource;
    const variables = (fn.Properties.Environment as { Variables: Record<string, unknown> }).Variables;
    expect(variables['USAGE_METER']).toBe('api-gateway');
    const statements = Object.values(template.findResources('AWS::IAM::Policy'))
      .flatMap((policy) => (policy as CfnResource).Properties.PolicyDocument as { Statement: unknown[] })
      .flatMap((document) => document.Statement as { Action: unknown; Resource: unknown }[])
      .filter((statement) => JSON.stringify(statement.Action).includes('apigateway'));
    expect(statements).toHaveLength(1);
    expect(statements[0]!.Action).toBe('apigateway:GET');
    expect(statements[0]!.Resource).toHaveLength(Object.keys(PLAN_TIERS).length);
    expect(JSON.stringify(statements[0]!.Resource)).toMatch(/\/usageplans\/.*\/usage/);
  });

  it('puts a web ACL on every stage: rate rules first, then the managed rule groups for a JSON API', () => {
    template.resourceCountIs('AWS::WAFv2::WebACL', 1);
    const [[, acl]] = resourcesOfType(template, 'AWS::WAFv2::WebACL') as [[string, CfnResource]];
    const rules = acl.Properties.Rules as {
      Name: string;
      Priority: number;
      Statement: Record<string, Record<string, unknown>>;
    }[];
    expect(rules.map((r) => r.Name)).toEqual([
      'RatePerIpAnonymous',
      'RatePerIpPublic',
      'RatePerIp',
      ...MANAGED_RULE_GROUPS,
    ]);
    expect(rules.map((r) => r.Priority)).toEqual([0, 1, 2, 3, 4, 5]);
    // Without a header that can be a bearer token: an invented Authorization header lifts no one.
    expect(rules[0]!.Statement['RateBasedStatement']).toMatchObject({
      AggregateKeyType: 'IP',
      Limit: DEFAULT_WAF_ANONYMOUS_RATE_LIMIT,
      EvaluationWindowSec: 300,
      ScopeDownStatement: {
        NotStatement: {
          Statement: {
            RegexMatchStatement: expect.objectContaining({
              FieldToMatch: { SingleHeader: { Name: 'authorization' } },
              RegexString: BEARER_HEADER_PATTERN,
            }),
          },
        },
      },
    });
    expect(rules[1]!.Statement['RateBasedStatement']).toMatchObject({
      AggregateKeyType: 'IP',
      Limit: DEFAULT_WAF_PUBLIC_RATE_LIMIT,
      EvaluationWindowSec: 300,
      ScopeDownStatement: {
        RegexMatchStatement: expect.objectContaining({ FieldToMatch: { UriPath: {} } }),
      },
    });
    expect(rules[2]!.Statement['RateBasedStatement']).toEqual({
      AggregateKeyType: 'IP',
      Limit: DEFAULT_WAF_RATE_LIMIT,
      EvaluationWindowSec: 300,
    });
    for (const rule of rules.slice(3)) {
      expect(rule.Statement['ManagedRuleGroupStatement']).toMatchObject({
        VendorName: 'AWS',
        Name: rule.Name,
      });
    }
    const [[stageId]] = resourcesOfType(template, 'AWS::ApiGateway::Stage') as [[string, CfnResource]];
    const [[, association]] = resourcesOfType(template, 'AWS::WAFv2::WebACLAssociation') as [
      [string, CfnResource],
    ];
    expect(JSON.stringify(association.Properties.ResourceArn)).toContain(stageId);
  });

  it('logs what WAF sees to a log group WAF accepts, kept a year, without the Authorization header', () => {
    template.hasResourceProperties('AWS::Logs::LogGroup', {
      LogGroupName: Match.stringLikeRegexp('^aws-waf-logs-'),
      RetentionInDays: 365,
    });
    template.hasResourceProperties('AWS::WAFv2::LoggingConfiguration', {
      RedactedFields: [{ SingleHeader: { Name: 'authorization' } }],
    });
  });

  it('raises alarms on spikes of 401/403 answers and of contact pages, counted from the access log', () => {
    template.hasResourceProperties('AWS::Logs::MetricFilter', {
      FilterPattern: '{ ($.status = "401") || ($.status = "403") }',
      MetricTransformations: [Match.objectLike({ MetricName: 'AuthFailures', MetricValue: '1' })],
    });
    template.hasResourceProperties('AWS::Logs::MetricFilter', {
      FilterPattern: Match.stringLikeRegexp('/v1/lists/\\{id\\}/contacts'),
      MetricTransformations: [Match.objectLike({ MetricName: 'ContactPages' })],
    });
    for (const [metricName, threshold] of [
      ['AuthFailures', ALARM_THRESHOLDS.authFailures],
      ['ContactPages', ALARM_THRESHOLDS.contactPages],
    ] as const) {
      template.hasResourceProperties('AWS::CloudWatch::Alarm', {
        MetricName: metricName,
        Threshold: threshold,
        AlarmActions: [Match.anyValue()],
      });
    }
  });
});
