/**
 * Request validation: valibot issues → 400 VALIDATION_ERROR with one detail per offending field,
 * paths in dotted/bracket form (`companies[3].countryCode`).
 */
import * as v from 'valibot';
import { ValidationError, type ErrorDetail } from './errors';

/** Made once: valibot only reads it. */
const PARSE_CONFIG = { abortPipeEarly: true } as const;

/** Validates `input` against `schema`, returning the typed output or throwing a ValidationError. */
export function validate<S extends v.GenericSchema>(
  schema: S,
  input: unknown,
  root: string,
): v.InferOutput<S> {
  const result = v.safeParse(schema, input, PARSE_CONFIG);
  if (result.success) return result.output;
  const details = uniqueByPath(result.issues.map((issue) => toDetail(issue, root)));
  return raise(schema, details);
}

/** A part of a request: its schema (none: the route takes no such part), what was sent, its name. */
export type RequestPart = readonly [schema: v.GenericSchema | undefined, input: unknown, root: string];

/**
 * The parts of one request (path, query, body) validated together: a ValidationError names every
 * offending field of every part, one detail each, in the parts' order; its message is the first's. An
 * absent path or query is an empty one; an absent body is left for the body schema to judge.
 */
export function validateParts(parts: readonly RequestPart[]): unknown[] {
  const outputs: unknown[] = [];
  const details: ErrorDetail[] = [];
  let first: v.GenericSchema | undefined;
  for (const [schema, input, root] of parts) {
    if (!schema) {
      outputs.push(undefined);
      continue;
    }
    const result = v.safeParse(schema, input ?? (root === 'body' ? undefined : {}), PARSE_CONFIG);
    if (result.success) {
      outputs.push(result.output);
      continue;
    }
    first ??= schema;
    details.push(...uniqueByPath(result.issues.map((issue) => toDetail(issue, root))));
  }
  return first ? raise(first, details) : outputs;
}

function raise(schema: v.GenericSchema, details: ErrorDetail[]): never {
  const first = details[0]!;
  const more = details.length > 1 ? ` (and ${details.length - 1} more)` : '';
  throw new ValidationError(`${summaryFor(schema, first)}${more}`, details);
}

function toDetail(issue: v.BaseIssue<unknown>, root: string): ErrorDetail {
  let path = '';
  for (const item of issue.path ?? []) {
    const key = item.key as string | number;
    path += typeof key === 'number' ? `[${key}]` : path ? `.${key}` : key;
  }
  return { path: path || root, message: issue.message };
}

/** One detail per field: the first (most basic) problem of each. */
function uniqueByPath(details: ErrorDetail[]): ErrorDetail[] {
  const seen = new Set<string>();
  return details.filter((d) => !seen.has(d.path) && seen.add(d.path));
}

/**
 * The request-level message. A bounded integer field reads as its whole rule ("limit must be an
 * integer between 1 and 500"), taken from the schema itself; anything else is "<path> <detail>".
 */
function summaryFor(schema: v.GenericSchema, detail: ErrorDetail): string {
  const field = topLevelEntry(schema, detail.path);
  const range = field && integerRange(field);
  return range
    ? `${detail.path} must be an integer between ${range.min} and ${range.max}`
    : `${detail.path} ${detail.message}`;
}

interface Introspectable {
  type: string;
  entries?: Record<string, v.GenericSchema>;
  wrapped?: v.GenericSchema;
  pipe?: ReadonlyArray<{ type: string; requirement?: unknown }>;
}

function topLevelEntry(schema: v.GenericSchema, path: string): v.GenericSchema | undefined {
  const node = schema as unknown as Introspectable;
  // A plain object schema, or a pipe that ends in one (jsonObject).
  const entries =
    node.entries ?? (node.pipe as Introspectable[] | undefined)?.find((item) => item.entries)?.entries;
  return entries && Object.hasOwn(entries, path) ? entries[path] : undefined;
}

function integerRange(schema: v.GenericSchema): { min: number; max: number } | null {
  let node = schema as unknown as Introspectable;
  while (node.wrapped) node = node.wrapped as unknown as Introspectable;
  const pipe = node.pipe ?? [];
  const min = pipe.find((a) => a.type === 'min_value')?.requirement;
  const max = pipe.find((a) => a.type === 'max_value')?.requirement;
  const integer = pipe.some((a) => a.type === 'integer');
  return integer && typeof min === 'number' && typeof max === 'number' ? { min, max } : null;
}
