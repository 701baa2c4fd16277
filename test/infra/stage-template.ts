/**
 * A stage is a stack and its nested stacks (infra/stack.ts). The tests read it as one template: each
 * nested template's resources with its parameters replaced by what the stage passes in, and each of the
 * stage's references to a nested output replaced by that output's value. So a function in a nested stack
 * reads `{ "Fn::GetAtt": [<table>, "Arn"] }` for the table as it would in a single template, and a
 * method's integration names the function's `Arn` itself. The nested stacks' own resources are left out.
 */
import { NestedStack, type Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
interface CfnTemplate {
  Resources: Record<string, { Type: string; Properties?: Record<string, Json> } & Record<string, Json>>;
  Outputs?: Record<string, { Value: Json }>;
  Parameters?: Record<string, Json>;
  [section: string]: Json | undefined | CfnTemplate['Resources'];
}

/** The templates of a stage: the stack's, then each nested stack's, by construct path. */
export function stageTemplates(stack: Stack): Map<string, Template> {
  const nested = stack.node.findAll().filter((c): c is NestedStack => c instanceof NestedStack);
  return new Map([stack, ...nested].map((s) => [s.node.path, Template.fromStack(s)]));
}

/** The whole stage as one template (see the module comment). */
export function stageTemplate(stack: Stack): Template {
  const root = Template.fromStack(stack).toJSON() as CfnTemplate;
  const resources: CfnTemplate['Resources'] = {};
  const outputsOf = new Map<string, Record<string, { Value: Json }>>();
  const nested = stack.node.findAll().filter((c): c is NestedStack => c instanceof NestedStack);
  for (const child of nested) {
    const id = stack.getLogicalId(child.nestedStackResource!);
    const passed = (root.Resources[id]?.Properties?.['Parameters'] ?? {}) as Record<string, Json>;
    const template = replace(Template.fromStack(child).toJSON() as Json, (node) => {
      const ref = refOf(node);
      return ref !== undefined && ref in passed ? passed[ref] : undefined;
    }) as unknown as CfnTemplate;
    for (const [logicalId, resource] of Object.entries(template.Resources)) {
      if (logicalId in resources || logicalId in root.Resources) {
        throw new Error(`Logical id ${logicalId} is in two templates of the stage`);
      }
      resources[logicalId] = resource;
    }
    outputsOf.set(id, template.Outputs ?? {});
  }
  const ownResources = Object.fromEntries(
    Object.entries(root.Resources).filter(([, r]) => r.Type !== 'AWS::CloudFormation::Stack'),
  );
  const flattened = replace(
    { ...root, Resources: { ...ownResources, ...resources } } as unknown as Json,
    (node) => {
      const getAtt =
        node !== null && typeof node === 'object' && !Array.isArray(node) ? node['Fn::GetAtt'] : undefined;
      if (!Array.isArray(getAtt) || typeof getAtt[0] !== 'string' || typeof getAtt[1] !== 'string')
        return undefined;
      const outputs = outputsOf.get(getAtt[0]);
      if (!outputs || !getAtt[1].startsWith('Outputs.')) return undefined;
      const output = outputs[getAtt[1].slice('Outputs.'.length)];
      if (!output) throw new Error(`No output ${getAtt[1]} in nested stack ${getAtt[0]}`);
      return output.Value;
    },
  );
  return Template.fromJSON(flattened as Record<string, unknown>, { skipCyclicalDependenciesCheck: true });
}

function refOf(node: Json): string | undefined {
  if (node === null || typeof node !== 'object' || Array.isArray(node)) return undefined;
  const keys = Object.keys(node);
  return keys.length === 1 && typeof node['Ref'] === 'string' ? node['Ref'] : undefined;
}

/** `node` with every part for which `swap` answers a value replaced by it (depth first, from the top). */
function replace(node: Json, swap: (node: Json) => Json | undefined): Json {
  const swapped = swap(node);
  if (swapped !== undefined) return swapped;
  if (Array.isArray(node)) return node.map((item) => replace(item, swap));
  if (node !== null && typeof node === 'object') {
    return Object.fromEntries(Object.entries(node).map(([key, value]) => [key, replace(value, swap)]));
  }
  return node;
}
