/**
 * Every answer a test receives, checked against the published contract: the OpenAPI document generated
 * from the route table (infra/openapi). One shared check, used by test/e2e/http.ts for every exchange
 * and by the fuzz tests:
 *   - the status is one the document lists for the operation (or, on no route, an error answer);
 *   - the body validates against that status's schema (Ajv, JSON Schema 2020-12), objects hold no key
 *     the schema does not name, and keys come in the schema's order (the contract is byte for byte);
 *   - every answer carries `x-request-id`, and an error body's `requestId` equals it.
 */
import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { buildDocument } from '../../infra/openapi/build';
import type { Route } from '../../lib/http/route';
import { routes } from '../../lib/routes';

type Schema = Record<string, unknown>;

export const contract = buildDocument();

const ajv = new Ajv2020({ strict: false, allErrors: false });
addFormats(ajv);
ajv.addSchema(contract, 'openapi');

interface CompiledRoute {
  routeId: string;
  route: Route;
  pattern: RegExp;
}

const compiledRoutes: CompiledRoute[] = Object.entries(routes).map(([routeId, route]) => ({
  routeId,
  route,
  pattern: new RegExp(`^${route.path.replace(/\./g, '\\.').replace(/\{\w+\}/g, '[^/]+')}/?$`),
}));

/** The route a request reaches, by method and path (as the gateway routes it). */
export function routeOf(method: string, path: string): CompiledRoute | null {
  const pathname = path.split('?', 1)[0]!;
  return (
    compiledRoutes.find(
      ({ route, pattern }) => route.method === method.toUpperCase() && pattern.test(pathname),
    ) ?? null
  );
}

export interface ContractAnswer {
  status: number;
  headers: Headers;
  raw: string;
  body: unknown;
}

/** An answer's text parsed as JSON, or undefined when it is not JSON. */
export function jsonOrUndefined(raw: string): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    return undefined;
  }
}

/** A fetch answer, read whole into what the check reads. */
export async function readAnswer(response: Response): Promise<ContractAnswer> {
  const raw = await response.text();
  return { status: response.status, headers: response.headers, raw, body: jsonOrUndefined(raw) };
}

const pointer = (...parts: string[]) =>
  parts.map((p) => p.replace(/~/g, '~0').replace(/\//g, '~1')).join('/');

const validators = new Map<string, { validate: ValidateFunction; schema: Schema }>();

function validatorFor(ref: string): { validate: ValidateFunction; schema: Schema } {
  let compiled = validators.get(ref);
  if (!compiled) {
    compiled = { validate: ajv.compile({ $ref: `openapi${ref}` }), schema: resolve(ref) };
    validators.set(ref, compiled);
  }
  return compiled;
}

/** The node a JSON pointer (`#/…`) names in the document, as is. */
function nodeAt(ref: string): Schema {
  let node: unknown = contract;
  for (const part of ref.replace(/^#\//, '').split('/')) {
    node = (node as Record<string, unknown>)[part.replace(/~1/g, '/').replace(/~0/g, '~')];
  }
  return node as Schema;
}

/** The pointer a `$ref` chain starting at `ref` ends at. */
function target(ref: string): string {
  const node = nodeAt(ref);
  return typeof node.$ref === 'string' ? target(node.$ref) : ref;
}

const resolve = (ref: string): Schema => nodeAt(target(ref));

/** What is wrong with an answer to `method path`, against the document; empty when nothing is. */
export function answerProblems(method: string, path: string, answer: ContractAnswer): string[] {
  const problems: string[] = [];
  const requestId = answer.headers.get('x-request-id');
  if (!requestId) problems.push('no x-request-id header');
  const found = routeOf(method, path);
  const isError = answer.status >= 400;

  let responseRef: string;
  if (found) {
    const operation = `#/${pointer('paths', found.route.path, found.route.method.toLowerCase())}`;
    const responses = resolve(`${operation}/responses`);
    if (!(String(answer.status) in responses)) {
      return [
        ...problems,
        `${found.routeId} answered ${answer.status}, which the document does not list (${Object.keys(responses).join(', ')})`,
      ];
    }
    responseRef = `${operation}/responses/${answer.status}`;
  } else {
    // No operation (unknown route, other method, what the gateway refuses as HTTP): the error shape.
    if (!isError) return [...problems, `${method} ${path} answered ${answer.status} but no route has it`];
    responseRef = '#/components/responses/Internal';
  }
  responseRef = target(responseRef);
  const response = nodeAt(responseRef);
  if (!response.content) {
    if (answer.raw !== '') problems.push(`a ${answer.status} answer has a body`);
    return problems;
  }
  const [mediaType] = Object.keys(response.content as Schema);
  const contentType = answer.headers.get('content-type') ?? '';
  if (!contentType.startsWith(mediaType!.split(';')[0]!)) {
    problems.push(`Content-Type is ${contentType}, the document says ${mediaType}`);
  }
  if (mediaType !== 'application/json') return problems;
  if (answer.body === undefined) return [...problems, 'the body is not JSON'];

  const { validate, schema } = validatorFor(`${responseRef}/content/${pointer(mediaType!)}/schema`);
  if (!validate(answer.body)) {
    for (const error of validate.errors ?? []) problems.push(`body${error.instancePath} ${error.message}`);
  }
  problems.push(...shapeProblems(answer.body, schema, 'body'));
  if (isError && (answer.body as { requestId?: unknown }).requestId !== requestId) {
    problems.push('the error body’s requestId is not the x-request-id header');
  }
  return problems;
}

/**
 * What JSON Schema does not say by default: an object holds only the keys its schema names (unless
 * the schema allows others), in the schema's order. Unions take the first object branch that fits.
 */
function shapeProblems(value: unknown, schema: Schema, at: string): string[] {
  if (typeof schema.$ref === 'string') return shapeProblems(value, resolve(schema.$ref), at);
  const branches = (schema.anyOf ?? schema.oneOf) as Schema[] | undefined;
  if (branches) {
    const fitting = branches.find((branch) => fits(value, branch));
    return fitting ? shapeProblems(value, fitting, at) : [];
  }
  if (Array.isArray(value) && schema.items && typeof schema.items === 'object') {
    return value.flatMap((item, i) => shapeProblems(item, schema.items as Schema, `${at}[${i}]`));
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value) || !schema.properties) return [];
  const properties = schema.properties as Record<string, Schema>;
  const declared = Object.keys(properties);
  const keys = Object.keys(value);
  const problems: string[] = [];
  const extra = keys.filter((key) => !declared.includes(key));
  if (
    extra.length > 0 &&
    schema.additionalProperties !== true &&
    !isSchemaObject(schema.additionalProperties)
  ) {
    problems.push(`${at} has keys the document does not name: ${extra.join(', ')}`);
  }
  const expectedOrder = declared.filter((key) => keys.includes(key));
  const actualOrder = keys.filter((key) => declared.includes(key));
  if (expectedOrder.join() !== actualOrder.join()) {
    problems.push(
      `${at} keys are in the order ${actualOrder.join(', ')}; the document says ${expectedOrder.join(', ')}`,
    );
  }
  for (const key of actualOrder) {
    problems.push(
      ...shapeProblems((value as Record<string, unknown>)[key], properties[key]!, `${at}.${key}`),
    );
  }
  return problems;
}

function isSchemaObject(value: unknown): boolean {
  return typeof value === 'object' && value !== null;
}

/** Whether a value could be of a union branch: same JSON type, and for objects, its required keys and no other. */
function fits(value: unknown, schema: Schema): boolean {
  if (typeof schema.$ref === 'string') return fits(value, resolve(schema.$ref));
  const type = value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value;
  if (schema.type !== undefined) {
    const types = ([] as unknown[]).concat(schema.type);
    if (!types.includes(type) && !(type === 'number' && types.includes('integer'))) return false;
  }
  if (type !== 'object' || !schema.properties) return true;
  const keys = Object.keys(value as object);
  const declared = Object.keys(schema.properties as object);
  return (
    ((schema.required as string[] | undefined) ?? []).every((key) => keys.includes(key)) &&
    (schema.additionalProperties === true || keys.every((key) => declared.includes(key)))
  );
}

/** Fails the test with every problem of an answer (see answerProblems). */
export function expectContractAnswer(method: string, path: string, answer: ContractAnswer): void {
  const problems = answerProblems(method, path, answer);
  if (problems.length > 0) {
    throw new Error(
      `${method} ${path} → ${answer.status} breaks the published contract:\n  ${problems.join('\n  ')}\n` +
        `body: ${answer.raw.slice(0, 500)}`,
    );
  }
}
