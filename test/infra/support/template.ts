/**
 * Reading a stage's template (stage-template.ts) the way the infrastructure tests ask about it: the
 * resources of a type, the API Gateway method and the function behind a route, the authorizer's and a
 * worker's function, and what a function's role lets it do (its statements, actions and table grants,
 * beside the grants a storage declaration asks for).
 */
import type { Template } from 'aws-cdk-lib/assertions';
import type { Route } from '../../../lib/http/route';
import type { Partition, StorageAccess, StorageAction } from '../../../lib/storage/access';
import { deniedPartitions } from '../../../lib/storage/access-check';
import { routes } from '../../../lib/routes';

export interface CfnResource {
  Type: string;
  Properties: Record<string, unknown>;
  DeletionPolicy?: string;
  UpdateReplacePolicy?: string;
}

/** Every route of the route table. */
export const allRoutes: Route[] = Object.values(routes);

export function resourcesOfType(template: Template, type: string): [string, CfnResource][] {
  return Object.entries(template.findResources(type) as Record<string, CfnResource>);
}

/** Logical id → full path (`/v1/health`) of every API Gateway resource, by following the ParentId chain. */
export function resourcePaths(template: Template): Map<string, string> {
  const resources = new Map(resourcesOfType(template, 'AWS::ApiGateway::Resource'));
  const paths = new Map<string, string>();
  const pathOf = (logicalId: string): string => {
    const resource = resources.get(logicalId);
    if (!resource) throw new Error(`No API resource ${logicalId}`);
    const parent = resource.Properties.ParentId as { Ref?: string };
    const parentPath = parent.Ref ? pathOf(parent.Ref) : '';
    return `${parentPath}/${String(resource.Properties.PathPart)}`;
  };
  for (const logicalId of resources.keys()) paths.set(logicalId, pathOf(logicalId));
  return paths;
}

export function methodsOn(template: Template, path: string): CfnResource[] {
  const paths = resourcePaths(template);
  return resourcesOfType(template, 'AWS::ApiGateway::Method')
    .map(([, method]) => method)
    .filter((method) => paths.get((method.Properties.ResourceId as { Ref: string }).Ref) === path);
}

export function routeMethod(template: Template, route: Route): CfnResource {
  const matching = methodsOn(template, route.path).filter((m) => m.Properties.HttpMethod === route.method);
  expect(matching).toHaveLength(1);
  return matching[0] as CfnResource;
}

/** The Lambda function a route's method invokes, found through its integration URI. */
export function routeFunctionId(template: Template, route: Route): string {
  const functionIds = Object.keys(template.findResources('AWS::Lambda::Function'));
  const uri = JSON.stringify((routeMethod(template, route).Properties.Integration as { Uri: unknown }).Uri);
  const id = functionIds.find((functionId) => uri.includes(`"Fn::GetAtt":["${functionId}","Arn"]`));
  if (!id) throw new Error(`No function behind ${route.method} ${route.path}`);
  return id;
}

export function authorizerFunctionId(template: Template): string {
  const [authorizerResource] = resourcesOfType(template, 'AWS::ApiGateway::Authorizer');
  const uri = JSON.stringify(authorizerResource?.[1].Properties.AuthorizerUri);
  const id = Object.keys(template.findResources('AWS::Lambda::Function')).find((functionId) =>
    uri.includes(`"Fn::GetAtt":["${functionId}","Arn"]`),
  );
  if (!id) throw new Error('No authorizer function');
  return id;
}

export function workerFunctionId(template: Template, workerId: string): string {
  const id = Object.keys(template.findResources('AWS::Lambda::Function')).find((functionId) =>
    functionId.startsWith(`${workerId}Function`),
  );
  if (!id) throw new Error(`No function for worker ${workerId}`);
  return id;
}

export interface Statement {
  Effect: string;
  Action: string | string[];
  Resource: unknown;
  Condition?: Record<string, Record<string, string[]>>;
}

/** Every statement of a function's role: its inline policies and any AWS::IAM::Policy attached to it. */
export function statementsOf(template: Template, functionId: string): Statement[] {
  const fn = template.findResources('AWS::Lambda::Function')[functionId] as CfnResource;
  const roleId = (fn.Properties.Role as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0];
  const role = template.findResources('AWS::IAM::Role')[roleId] as CfnResource;
  const inline = (role.Properties.Policies as { PolicyDocument: unknown }[] | undefined) ?? [];
  const attached = resourcesOfType(template, 'AWS::IAM::Policy')
    .map(([, policy]) => policy.Properties)
    .filter((policy) => (policy.Roles as { Ref: string }[]).some((r) => r.Ref === roleId));
  return [...inline, ...attached].flatMap(
    (policy) => (policy.PolicyDocument as { Statement: Statement[] }).Statement,
  );
}

export function actionsOf(template: Template, functionId: string): string[] {
  return statementsOf(template, functionId).flatMap((statement) => [statement.Action].flat());
}

/**
 * What a function's role lets it do to the table, as `action on resource where pk is like pattern`
 * lines (`dynamodb:GetItem table COMPANY#*#*`, `dynamodb:Query index/gsi1 TOKENS`). A DynamoDB statement
 * without a LeadingKeys condition, or on any other resource, shows as `… <table or resource> ANY KEY`.
 */
export function tableGrantsOf(template: Template, functionId: string): string[] {
  const [tableId] = Object.keys(template.findResources('AWS::DynamoDB::GlobalTable'));
  const tableArn = JSON.stringify({ 'Fn::GetAtt': [tableId, 'Arn'] });
  const grants: string[] = [];
  for (const statement of statementsOf(template, functionId)) {
    const actions = [statement.Action].flat().filter((a) => a.startsWith('dynamodb:'));
    if (actions.length === 0) continue;
    // Allow: every key must match (ForAllValues); Deny: any key matching refuses (ForAnyValue).
    const deny = statement.Effect === 'Deny';
    expect(statement.Effect).toBe(deny ? 'Deny' : 'Allow');
    const operator = deny ? 'ForAnyValue:StringLike' : 'ForAllValues:StringLike';
    for (const resource of [statement.Resource].flat()) {
      const text = JSON.stringify(resource);
      const index = /"\/index\/([^"]+)"/.exec(text)?.[1];
      const where =
        text === tableArn ? 'table' : index && text.includes(tableArn) ? `index/${index}` : `other ${text}`;
      const patterns = statement.Condition?.[operator]?.['dynamodb:LeadingKeys'];
      const conditionKeys = Object.keys(statement.Condition ?? {});
      const keyed = patterns && conditionKeys.length === 1 ? patterns : ['ANY KEY'];
      for (const action of actions)
        for (const p of keyed) grants.push(`${deny ? 'DENY ' : ''}${action} ${where} ${p}`);
    }
  }
  return grants.sort();
}

/**
 * The same lines, from a storage declaration (a route row, the authorizer's, a worker's): what it
 * declares, and the families its patterns also match that it does not declare (denied).
 */
export function declaredGrants(storage: StorageAccess): string[] {
  const line = (action: string, p: Partition) =>
    `dynamodb:${action} ${p.index ? `index/${p.index}` : 'table'} ${p.pattern}`;
  return Object.entries(storage)
    .flatMap(([action, partitions]) => [
      ...(partitions ?? []).map((p) => line(action, p)),
      ...deniedPartitions(storage, action as StorageAction).map((p) => `DENY ${line(action, p)}`),
    ])
    .sort();
}
