/**
 * The functions behind the API, in nested stacks of the stage: one per domain of the route table
 * (`routesByDomain`, lib/routes.ts), holding each route's function, role, log group, alarm and the
 * permission that lets the route's method invoke it. The methods themselves
 * stay on the stage's REST API (infra/api.ts), where API Gateway keeps them: a method moved to another
 * template would be created before the old one is deleted, which API Gateway refuses.
 *
 * Adding a route adds ROUTE_RESOURCES to its domain's template, and its method (with a path's
 * resource and 405 answer for each new path segment) to the stage's.
 */
import { Duration, NestedStack } from 'aws-cdk-lib';
import type { RemovalPolicy, Stack } from 'aws-cdk-lib';
import type { RestApi } from 'aws-cdk-lib/aws-apigateway';
import type { TableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import { handlerEntry, type Route } from '../lib/http/route';
import { authorizer } from '../lib/routes';
import type { AlarmTarget } from './alarms';
import { ApiFunction } from './function';

/** What one route adds to its domain's template: function, role, its policy, log group, alarm, permission. */
export const ROUTE_RESOURCES = 6;

export interface FunctionStackProps {
  stage: string;
  table: TableV2;
  removalPolicy: RemovalPolicy;
  alarms: AlarmTarget;
}

/** A domain's routes' functions, by route id. */
export class DomainRoutes extends NestedStack {
  readonly functions: Record<string, NodejsFunction> = {};

  constructor(
    scope: Stack,
    id: string,
    props: FunctionStackProps & { domain: string; routes: Record<string, Route>; api: RestApi },
  ) {
    super(scope, id, {
      description: `company-data ${props.stage}: the functions of the ${props.domain} routes`,
    });
    const { stage, table, removalPolicy, alarms, api } = props;
    for (const [routeId, route] of Object.entries(props.routes)) {
      const { function: handler } = new ApiFunction(this, `${routeId}Function`, {
        name: routeId,
        entry: handlerEntry(routeId),
        route,
        table,
        storage: route.storage,
        requestPath: true,
        removalPolicy,
        alarms,
      });
      // Only this route's method on this stage may invoke it: no console test-invoke, so no way in that
      // skips the authorizer. The stage's name, not its reference: the stage waits for the methods.
      handler.addPermission('ApiPermission', {
        principal: new ServicePrincipal('apigateway.amazonaws.com'),
        sourceArn: api.arnForExecuteApi(route.method, route.path.replace(/\{[^}]+\}/g, '*'), stage),
      });
      this.functions[routeId] = handler;
    }
  }
}

/**
 * The token authorizer's function, in the stage's own template beside the authorizer: the permission
 * API Gateway needs to call it names the authorizer, which must not wait for a nested stack that waits
 * for it in turn.
 */
export function addAuthorizerFunction(
  scope: Stack,
  props: FunctionStackProps & { concurrency: number },
): NodejsFunction {
  return new ApiFunction(scope, 'AuthorizerFunction', {
    name: 'authorizer',
    entry: authorizer.entry,
    table: props.table,
    storage: authorizer.storage,
    // It runs before every uncached call: a slow authorizer should fail fast, not hold the request
    // (its storage calls give up within storageBudgetMs(REQUEST_PATH_TIMEOUTS), under this).
    timeout: Duration.seconds(5),
    requestPath: true,
    removalPolicy: props.removalPolicy,
    reservedConcurrentExecutions: props.concurrency,
    alarms: props.alarms,
  }).function;
}
