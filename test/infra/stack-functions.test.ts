/**
 * The dev stage's functions (infra/function.ts, infra/route-functions.ts, infra/workers.ts): one per
 * route, the authorizer and the workers, each with its runtime, storage timeouts, log group and a role
 * that grants exactly the table access its storage declaration asks for.
 */
import { REQUEST_LOG_SAMPLE_RATE } from '../../lib/config';
import { routes, workers } from '../../lib/routes';
import { ACCESS_ENFORCED_BY_IAM } from '../../lib/storage/access';
import { REQUEST_PATH_TIMEOUTS, storageBudgetMs, TIMEOUT_VARIABLES } from '../../lib/storage/client';
import { devTemplate } from './support/stage';
import {
  actionsOf,
  allRoutes,
  authorizerFunctionId,
  type CfnResource,
  declaredGrants,
  resourcesOfType,
  routeFunctionId,
  tableGrantsOf,
} from './support/template';

describe('CompanyDataStack (dev)', () => {
  const template = devTemplate();

  describe('functions', () => {
    const functions = resourcesOfType(template, 'AWS::Lambda::Function');

    it('has one function per route plus the authorizer and the workers', () => {
      expect(functions).toHaveLength(allRoutes.length + 1 + Object.keys(workers).length);
    });

    it('runs every function on Node.js 24 arm64 with explicit memory and timeout and the table name', () => {
      for (const [, fn] of functions) {
        expect(fn.Properties).toMatchObject({
          Runtime: 'nodejs24.x',
          Architectures: ['arm64'],
          MemorySize: expect.any(Number),
          Timeout: expect.any(Number),
          Environment: { Variables: { TABLE_NAME: { Ref: expect.any(String) } } },
        });
      }
    });

    it('tells every function that IAM enforces its storage declaration (no in-process check on AWS)', () => {
      for (const [, fn] of functions) {
        const variables = (fn.Properties.Environment as { Variables: Record<string, unknown> }).Variables;
        expect(variables[ACCESS_ENFORCED_BY_IAM]).toBe('true');
      }
    });

    it('gives the route functions and the authorizer storage timeouts that answer 503 before theirs', () => {
      const budget = storageBudgetMs(REQUEST_PATH_TIMEOUTS);
      expect(budget).toBe(3 * 1200 + 200 + 400);
      const answering = [
        ...allRoutes.map((r) => routeFunctionId(template, r)),
        authorizerFunctionId(template),
      ];
      for (const id of answering) {
        const fn = template.findResources('AWS::Lambda::Function')[id] as CfnResource;
        const variables = (fn.Properties.Environment as { Variables: Record<string, string> }).Variables;
        expect(variables).toMatchObject({
          [TIMEOUT_VARIABLES.connectionMs]: String(REQUEST_PATH_TIMEOUTS.connectionMs),
          [TIMEOUT_VARIABLES.requestMs]: String(REQUEST_PATH_TIMEOUTS.requestMs),
        });
        expect((fn.Properties.Timeout as number) * 1000).toBeGreaterThan(budget);
      }
    });

    it('has each route function log the line of 1 in 100 answered requests (every failed or slow one)', () => {
      for (const route of allRoutes) {
        const fn = template.findResources('AWS::Lambda::Function')[
          routeFunctionId(template, route)
        ] as CfnResource;
        const variables = (fn.Properties.Environment as { Variables: Record<string, string> }).Variables;
        expect(variables[REQUEST_LOG_SAMPLE_RATE]).toBe('0.01');
      }
    });

    it('does not enable source maps at run time (NODE_OPTIONS), which slows cold starts', () => {
      for (const [, fn] of functions) {
        const variables = (fn.Properties.Environment as { Variables: Record<string, unknown> }).Variables;
        expect(variables).not.toHaveProperty('NODE_OPTIONS');
      }
    });

    it('gives every function its own log group with a retention', () => {
      const logGroups = template.findResources('AWS::Logs::LogGroup');
      const used = functions.map(
        ([, fn]) => (fn.Properties.LoggingConfig as { LogGroup: { Ref: string } }).LogGroup.Ref,
      );
      expect(new Set(used).size).toBe(functions.length);
      for (const logGroupId of used) {
        expect((logGroups[logGroupId] as CfnResource).Properties.RetentionInDays).toBe(30);
      }
    });

    it('lets each function write only to its own log group, with no AWS-managed policy', () => {
      const roles = template.findResources('AWS::IAM::Role');
      for (const [, fn] of functions) {
        const roleId = (fn.Properties.Role as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0];
        const logGroupId = (fn.Properties.LoggingConfig as { LogGroup: { Ref: string } }).LogGroup.Ref;
        const role = roles[roleId] as CfnResource;
        expect(role.Properties.ManagedPolicyArns).toBeUndefined();
        const policies = role.Properties.Policies as { PolicyName: string }[];
        expect(policies.filter((p) => p.PolicyName !== 'storage')).toEqual([
          {
            PolicyName: 'logs',
            PolicyDocument: {
              Version: '2012-10-17',
              Statement: [
                {
                  Action: ['logs:CreateLogStream', 'logs:PutLogEvents'],
                  Effect: 'Allow',
                  Resource: { 'Fn::GetAtt': [logGroupId, 'Arn'] },
                },
              ],
            },
          },
        ]);
      }
    });

    it.each(Object.entries(routes).map(([id, r]) => [`${r.method} ${r.path}`, id, r] as const))(
      'gives the function of %s exactly the table access its route row declares',
      (_, _id, route) => {
        expect(tableGrantsOf(template, routeFunctionId(template, route))).toEqual(
          declaredGrants(route.storage),
        );
      },
    );

    it('gives each worker exactly the table access it declares', () => {
      const functionIds = Object.keys(template.findResources('AWS::Lambda::Function'));
      for (const [workerId, worker] of Object.entries(workers)) {
        const id = functionIds.find((f) => f.startsWith(`${workerId}Function`));
        expect(id).toBeDefined();
        expect(tableGrantsOf(template, id!)).toEqual(declaredGrants(worker.storage));
      }
    });

    it('grants no function Scan, and every table grant is bound to declared partitions', () => {
      for (const functionId of Object.keys(template.findResources('AWS::Lambda::Function'))) {
        const grants = tableGrantsOf(template, functionId);
        expect(grants.filter((g) => g.includes('Scan'))).toEqual([]);
        expect(grants.filter((g) => g.endsWith('ANY KEY') || g.includes(' other '))).toEqual([]);
        expect(actionsOf(template, functionId)).not.toContain('dynamodb:*');
      }
    });

    it('lets read-only routes write nothing and public routes touch nothing', () => {
      for (const route of allRoutes) {
        const grants = tableGrantsOf(template, routeFunctionId(template, route));
        if (route.method === 'GET') {
          expect(grants.filter((g) => /(Put|Update|Delete|BatchWrite|ConditionCheck)Item /.test(g))).toEqual(
            [],
          );
        }
        if (route.scope === null) expect(grants).toEqual([]);
      }
    });
  });
});
