/**
 * valibot → JSON Schema (draft 2020-12, OpenAPI 3.1's dialect) for the OpenAPI document, from the very
 * schemas that validate requests and type answers. @valibot/to-json-schema does the work; this module
 * only teaches it the project's few building blocks that it cannot read on its own:
 *   - `jsonObject()` (lib/http/schemas.ts): a `custom` object check piped into an `object` schema;
 *   - `objectAsSent()`: a `custom` object check and an action that checks the properties of a loose
 *     object as sent, documented as that loose object;
 *   - a `custom` check alone (a hand-checked entry): its JSON type is found by probing it, unless it
 *     says what to document instead (`documentedAs`);
 *   - `integerQuery()`: query text turned into a bounded integer, documented as that integer;
 *   - `anyCase()`: text upper-cased into one of a picklist, documented as the picklist;
 *   - a `lazy` schema (made on first use, lib/lists/filters.ts): documented as the schema it makes;
 *   - refinements JSON Schema has no word for (`check`, `rawCheck`, `finite`) are left to the
 *     descriptions; anything else it cannot convert fails the build, so nothing is silently dropped.
 */
import { toJsonSchema, type JsonSchema } from '@valibot/to-json-schema';
import * as v from 'valibot';
import { upperCase } from '../../lib/http/schemas';

export type Direction = 'request' | 'response';

type AnySchema = v.BaseSchema<unknown, unknown, v.BaseIssue<unknown>>;
type PipeItem = { kind: string; type: string; requirement?: unknown; message?: unknown };

/** Refinements that stay in prose: they narrow a value in ways JSON Schema cannot state. */
const PROSE_ONLY_ACTIONS = ['check', 'raw_check', 'finite'];

export function jsonSchemaOf(schema: v.GenericSchema, direction: Direction): JsonSchema {
  const converted = toJsonSchema(prepare(schema as AnySchema), {
    target: 'draft-2020-12',
    typeMode: direction === 'request' ? 'input' : 'output',
    errorMode: 'throw',
    ignoreActions: PROSE_ONLY_ACTIONS,
    overrideSchema: ({ valibotSchema }) =>
      valibotSchema.type === 'custom' ? probedType(valibotSchema) : null,
  });
  delete converted.$schema; // the document's dialect is OpenAPI 3.1's own
  return withoutEmptyRequired(converted);
}

/** An object with no required property says nothing by `required: []`: left out. */
function withoutEmptyRequired<T>(value: T): T {
  if (Array.isArray(value)) return value.map(withoutEmptyRequired) as T;
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([key, item]) => !(key === 'required' && Array.isArray(item) && item.length === 0))
      .map(([key, item]) => [key, withoutEmptyRequired(item)]),
  ) as T;
}

type Node = AnySchema & Record<string, unknown>;

/**
 * The schema as the converter should read it: a copy with the project's building blocks rewritten into
 * plain valibot (the converter only reads schemas, it never runs them, so a shallow copy is enough).
 */
function prepare(schema: AnySchema): AnySchema {
  const node = schema as Node;
  if (node.type === 'lazy') return prepare((node.getter as (input: unknown) => AnySchema)(undefined));
  if ('pipe' in node) return preparePipe(node, node.pipe as PipeItem[]);
  const copy: Node = { ...node };
  if (node.entries) {
    copy.entries = Object.fromEntries(
      Object.entries(node.entries as Record<string, AnySchema>).map(([key, entry]) => [key, prepare(entry)]),
    );
  }
  // A loose object says so: keys beyond the named ones are allowed (made explicit for readers and checks).
  if (node.type === 'loose_object') {
    return v.objectWithRest(copy.entries as v.ObjectEntries, v.unknown()) as unknown as AnySchema;
  }
  if (node.item) copy.item = prepare(node.item as AnySchema);
  // `options` of a union are schemas; of a picklist, plain values.
  for (const list of ['items', 'options'] as const) {
    if (Array.isArray(node[list]))
      copy[list] = (node[list] as unknown[]).map((o) => (isSchema(o) ? prepare(o) : o));
  }
  if (node.key) copy.key = prepare(node.key as AnySchema);
  if (isSchema(node.value)) copy.value = prepare(node.value);
  if (node.wrapped) {
    copy.wrapped = prepare(node.wrapped as AnySchema);
    // integerQuery()'s default is the text "4": documented as the number it stands for.
    if ((copy.wrapped as Node).type === 'number' && typeof node.default === 'string') {
      copy.default = Number(node.default);
    }
  }
  return copy;
}

const documentedAsOf = (item: PipeItem) =>
  (item as unknown as { metadata?: { documentedAs?: unknown } }).metadata?.documentedAs;

function isSchema(value: unknown): value is AnySchema {
  return typeof value === 'object' && value !== null && (value as { kind?: unknown }).kind === 'schema';
}

function preparePipe(node: Node, pipe: PipeItem[]): AnySchema {
  // A hand-checked value that says what to document instead (`documentedAs`, lib/http/schemas.ts).
  const documented = pipe.find((item) => item.type === 'metadata' && isSchema(documentedAsOf(item)));
  if (documented) return prepare(documentedAsOf(documented) as AnySchema);
  const [first, ...rest] = pipe;
  // jsonObject(): the custom check only says "an object"; the object schema after it says the rest.
  if (first?.type === 'custom' && rest[0]?.kind === 'schema') {
    return prepare(
      rest.length === 1 ? (rest[0] as unknown as AnySchema) : ({ ...rest[0], pipe: rest } as unknown as Node),
    );
  }
  // objectAsSent(): the custom check only says "an object"; its properties are checked by the loose
  // object its action holds, which is what is documented.
  const asSent = rest.find((item) => item.type === 'properties_as_sent');
  if (first?.type === 'custom' && asSent) {
    const shape = asSent.requirement as Node;
    const others = rest.filter((item) => item !== asSent);
    return prepare(others.length === 0 ? shape : ({ ...shape, pipe: [shape, ...others] } as Node));
  }
  const transform = pipe.findIndex((item) => item.type === 'transform');
  // anyCase(): text upper-cased into one of a picklist, documented as the picklist with what the
  // pipe says of the text (that any letter case will do).
  const after = pipe[transform + 1];
  const upperCased = (pipe[transform] as { operation?: unknown } | undefined)?.operation === upperCase;
  if (first?.type === 'string' && upperCased && after?.type === 'picklist') {
    const notes = pipe.slice(1, transform).filter((item) => item.kind === 'metadata');
    return prepare({ ...after, pipe: [after, ...notes, ...pipe.slice(transform + 2)] } as unknown as Node);
  }
  // integerQuery(): text on the wire, a bounded integer by the time it is validated.
  if (first?.type === 'string' && transform > 0 && pipe.slice(transform).some((i) => i.type === 'integer')) {
    const number = v.number();
    return { ...number, pipe: [number, ...pipe.slice(transform + 1)] } as Node;
  }
  const items = pipe.map((item) => (item.kind === 'schema' ? prepare(item as unknown as AnySchema) : item));
  return { ...(items[0] as Node), pipe: items } as Node;
}
/** What a `custom` schema accepts, found by trying one value of each JSON type on it. */
function probedType(schema: AnySchema): JsonSchema {
  const probes: Array<[JsonSchema['type'], unknown]> = [
    ['object', {}],
    ['array', []],
    ['string', ''],
    ['number', 0],
    ['boolean', false],
    ['null', null],
  ];
  const accepted = probes.filter(([, value]) => !v.safeParse(schema, value).issues?.length);
  // A hand-checked object: the keys it reads are in its description; others are ignored, not refused.
  if (accepted.length === 1 && accepted[0]![0] === 'object')
    return { type: 'object', additionalProperties: {} };
  if (accepted.length === 1) return { type: accepted[0]![0] };
  // A field that may not be sent at all (PATCH /v1/lists/{id}'s `type`): no value is valid.
  if (accepted.length === 0) return { not: {} };
  throw new Error('A custom schema that accepts several JSON types cannot be documented: describe it');
}
