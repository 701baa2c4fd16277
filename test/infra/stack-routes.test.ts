/**
 * The dev stage's API (infra/stack.ts, infra/api.ts, infra/gateway-responses.ts): a method with the
 * function behind it for every row of the route table and nothing else, the token authorizer in front of
 * every route that needs a scope, 405 on a known path with another method, and the gateway's own answers
 * in the contract's error shape.
 */
import { DEFAULT_AUTHORIZER_CONCURRENCY } from '../../infra/api';
import { authorizer } from '../../lib/routes';
import { BEARER_HEADER_PATTERN } from '../../lib/tokens/token-format';
import { devTemplate } from './support/stage';
import {
  allRoutes,
  authorizerFunctionId,
  type CfnResource,
  methodsOn,
  resourcesOfType,
  routeFunctionId,
  routeMethod,
  tableGrantsOf,
} from './support/template';
import * as partitions from '../../lib/storage/partitions';

describe('CompanyDataStack (dev)', () => {
  const template = devTemplate();

  describe('routes', () => {
    it.each(allRoutes.map((r) => [`${r.method} ${r.path}`, r] as const))('serves %s', (_, route) => {
      const method = routeMethod(template, route);
      expect(method.Properties.Integration).toMatchObject({
        Type: 'AWS_PROXY',
        IntegrationHttpMethod: 'POST',
      });
    });

    it('serves no method that is not in the route table, besides the 405 answers', () => {
      const methods = resourcesOfType(template, 'AWS::ApiGateway::Method').map(([, m]) => m);
      const routeMethods = methods.filter((m) => m.Properties.HttpMethod !== 'ANY');
      expect(routeMethods).toHaveLength(allRoutes.length);
    });

    it('puts the token authorizer in front of every route that needs a scope', () => {
      const authorizerIds = Object.keys(template.findResources('AWS::ApiGateway::Authorizer'));
      expect(authorizerIds).toHaveLength(1);
      for (const route of allRoutes.filter((r) => r.scope !== null)) {
        expect(routeMethod(template, route).Properties).toMatchObject({
          AuthorizationType: 'CUSTOM',
          AuthorizerId: { Ref: authorizerIds[0] },
        });
      }
    });

    it('leaves public routes open', () => {
      const publicRoutes = allRoutes.filter((r) => r.scope === null);
      expect(publicRoutes.length).toBeGreaterThan(0);
      for (const route of publicRoutes) {
        const { Properties } = routeMethod(template, route);
        expect(Properties.AuthorizationType).toBe('NONE');
        expect(Properties.AuthorizerId).toBeUndefined();
      }
    });

    it("lets only its route's method on this stage invoke each route's function (no test invoke)", () => {
      const permissions = resourcesOfType(template, 'AWS::Lambda::Permission').map(([, p]) => p.Properties);
      for (const route of allRoutes) {
        const functionId = routeFunctionId(template, route);
        const own = permissions.filter(
          (p) => JSON.stringify(p.FunctionName) === JSON.stringify({ 'Fn::GetAtt': [functionId, 'Arn'] }),
        );
        expect(own).toHaveLength(1);
        const sourceArn = JSON.stringify(own[0]!.SourceArn);
        const [restApiId] = Object.keys(template.findResources('AWS::ApiGateway::RestApi'));
        expect(sourceArn).toContain(JSON.stringify({ Ref: restApiId }));
        expect(sourceArn).toContain(`"/dev/${route.method}${route.path.replace(/\{[^}]+\}/g, '*')}"`);
      }
    });

    it('gives every route its own function', () => {
      const functionIds = allRoutes.map((route) => routeFunctionId(template, route));
      expect(new Set(functionIds).size).toBe(allRoutes.length);
      expect(functionIds).not.toContain(authorizerFunctionId(template));
    });
  });

  describe('token authorizer', () => {
    it('reads the Authorization header, pre-checks its shape and caches answers under 5 seconds', () => {
      template.resourceCountIs('AWS::ApiGateway::Authorizer', 1);
      template.hasResourceProperties('AWS::ApiGateway::Authorizer', {
        Type: 'TOKEN',
        IdentitySource: 'method.request.header.Authorization',
        IdentityValidationExpression: BEARER_HEADER_PATTERN,
        AuthorizerResultTtlInSeconds: authorizer.cacheTtlSeconds,
      });
      // Contract §13: a revoked token stops working within 5 seconds.
      expect(authorizer.cacheTtlSeconds).toBeLessThan(5);
    });

    it('has concurrency reserved for it alone, so the routes cannot starve it', () => {
      const fn = template.findResources('AWS::Lambda::Function')[
        authorizerFunctionId(template)
      ] as CfnResource;
      expect(fn.Properties.ReservedConcurrentExecutions).toBe(DEFAULT_AUTHORIZER_CONCURRENCY);
    });

    it('may only GetItem token items: TOKEN#* on the table, nothing else', () => {
      expect(tableGrantsOf(template, authorizerFunctionId(template))).toEqual([
        `dynamodb:GetItem table ${partitions.token.pattern}`,
      ]);
      expect(partitions.token.pattern).toBe('TOKEN#*');
    });
  });

  describe('405 on a known path with another method', () => {
    const paths = [...new Set(allRoutes.map((r) => r.path))];

    it.each(paths)('answers 405 on %s for methods it does not serve, without a token', (path) => {
      const allowed = allRoutes.filter((r) => r.path === path).map((r) => r.method);
      const anyMethods = methodsOn(template, path).filter((m) => m.Properties.HttpMethod === 'ANY');
      expect(anyMethods).toHaveLength(1);
      const { Properties } = anyMethods[0] as CfnResource;
      expect(Properties.AuthorizationType).toBe('NONE');
      const integration = Properties.Integration as {
        Type: string;
        IntegrationResponses: {
          StatusCode: string;
          ResponseTemplates: Record<string, string>;
          ResponseParameters: Record<string, string>;
        }[];
      };
      expect(integration.Type).toBe('MOCK');
      const [response] = integration.IntegrationResponses;
      expect(response?.StatusCode).toBe('405');
      expect(JSON.parse(response?.ResponseTemplates['application/json'] ?? '')).toEqual({
        message: 'Method not allowed',
        code: 'METHOD_NOT_ALLOWED',
        requestId: '$context.requestId',
      });
      expect(response?.ResponseParameters).toMatchObject({
        'method.response.header.Allow': `'${allowed.join(', ')}'`,
        'method.response.header.Content-Type': "'application/json'",
        'method.response.header.Cache-Control': "'no-store'",
      });
    });
  });

  describe('gateway responses', () => {
    const unavailable = {
      status: '503',
      message: 'Service unavailable, retry later',
      code: 'UNAVAILABLE',
      retryAfter: "'3'",
    };
    interface Expected {
      type: string;
      status: string;
      message: string;
      code: string;
      retryAfter?: string;
      wwwAuthenticate?: boolean;
    }
    const expected: Expected[] = [
      {
        type: 'UNAUTHORIZED',
        status: '401',
        message: 'Unauthorized',
        code: 'UNAUTHORIZED',
        wwwAuthenticate: true,
      },
      { type: 'ACCESS_DENIED', status: '403', message: 'Forbidden', code: 'FORBIDDEN' },
      { type: 'MISSING_AUTHENTICATION_TOKEN', status: '404', message: 'Route not found', code: 'NOT_FOUND' },
      {
        type: 'THROTTLED',
        status: '429',
        message: 'Too many requests',
        code: 'THROTTLED',
        retryAfter: "'1'",
      },
      // A fixed hour: a gateway response computes nothing (contract §13).
      {
        type: 'QUOTA_EXCEEDED',
        status: '429',
        message: 'Too many requests',
        code: 'THROTTLED',
        retryAfter: "'3600'",
      },
      // The managed rules' refusals: asking again is refused again (the rate rules answer 429 themselves).
      { type: 'WAF_FILTERED', status: '403', message: 'Forbidden', code: 'FORBIDDEN' },
      {
        type: 'REQUEST_TOO_LARGE',
        status: '413',
        message: 'Request body must be at most 1 MiB',
        code: 'PAYLOAD_TOO_LARGE',
      },
      {
        type: 'UNSUPPORTED_MEDIA_TYPE',
        status: '415',
        message: 'Content-Type must be application/json',
        code: 'UNSUPPORTED_MEDIA_TYPE',
      },
      ...[
        'INTEGRATION_TIMEOUT',
        'INTEGRATION_FAILURE',
        'AUTHORIZER_FAILURE',
        'AUTHORIZER_CONFIGURATION_ERROR',
      ].map((type) => ({ type, ...unavailable })),
      { type: 'DEFAULT_4XX', status: '403', message: 'Forbidden', code: 'FORBIDDEN' },
      { type: 'DEFAULT_5XX', status: '500', message: 'Internal server error', code: 'INTERNAL' },
    ];

    it.each(expected.map((e) => [e.type, e] as const))(
      'answers %s in the contract error shape, never cached',
      (type, { status, message, code, retryAfter, wwwAuthenticate }) => {
        const matches = resourcesOfType(template, 'AWS::ApiGateway::GatewayResponse').filter(
          ([, r]) => r.Properties.ResponseType === type,
        );
        expect(matches).toHaveLength(1);
        const { Properties } = (matches[0] as [string, CfnResource])[1];
        expect(Properties.StatusCode).toBe(status);
        const body = (Properties.ResponseTemplates as Record<string, string>)['application/json'] ?? '';
        expect(JSON.parse(body)).toEqual({ message, code, requestId: '$context.requestId' });
        const headers = Properties.ResponseParameters as Record<string, string>;
        expect(headers['gatewayresponse.header.x-request-id']).toBe('context.requestId');
        expect(headers['gatewayresponse.header.Cache-Control']).toBe("'no-store'");
        expect(headers['gatewayresponse.header.Retry-After']).toBe(retryAfter);
        expect(headers['gatewayresponse.header.WWW-Authenticate']).toBe(
          wwwAuthenticate ? "'Bearer'" : undefined,
        );
      },
    );

    it('uses only codes the contract lists', () => {
      const contractCodes = ['INVALID_JSON', 'VALIDATION_ERROR', 'UNAUTHORIZED', 'FORBIDDEN', 'NOT_FOUND'];
      contractCodes.push('METHOD_NOT_ALLOWED', 'PAYLOAD_TOO_LARGE', 'UNSUPPORTED_MEDIA_TYPE', 'THROTTLED');
      contractCodes.push('INTERNAL', 'UNAVAILABLE');
      for (const [, response] of resourcesOfType(template, 'AWS::ApiGateway::GatewayResponse')) {
        const body =
          (response.Properties.ResponseTemplates as Record<string, string>)['application/json'] ?? '';
        expect(contractCodes).toContain((JSON.parse(body) as { code: string }).code);
      }
    });
  });

  it('outputs the stage URL and the table name', () => {
    template.hasOutput('ApiUrl', {});
    template.hasOutput('TableName', {});
  });
});
