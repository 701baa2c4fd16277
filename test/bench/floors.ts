/**
 * What a floor is built from: the public packages its function's bundle loads when it loads, each used
 * the least a handler can use it for the same request, around the floor's bare DynamoDB calls
 * (floor-sources.ts `FLOOR_SOURCES`). The packages come from the function's metafile (bundles.ts
 * `loadedPackages`), so a package a function starts to load shows up in its floor, or stops the bench
 * until this module says how a floor uses it.
 */
import { FLOOR_SOURCES, type FloorKind } from './floor-sources';

/** The public packages a bundle loads when it loads (not those behind a dynamic import, loaded on first use). */
export interface FloorPackages {
  /** The SDK's client packages (`@aws-sdk/client-kms`, the document client's `@aws-sdk/lib-dynamodb`, …), sorted. */
  clients: string[];
  /** middy's core, which runs every route's handler. */
  middy: boolean;
  /**
   * The other packages the project's own code imports (valibot, middy's middlewares), sorted: each one a
   * floor uses (`PACKAGE_USES`), or a package the clients load themselves (`CARRIED_BY_CLIENTS`).
   */
  others: string[];
  /** Every package the bundle loads, its dependencies' dependencies included: what its floor must load too. */
  loaded: string[];
}

/**
 * Floors as they were before they loaded the function's other packages (`npm run bench -- --floor sdk`):
 * the SDK's clients and middy's core only. Kept so a run can report its ratios against both.
 */
export const sdkOnly = (packages: FloorPackages): FloorPackages => ({ ...packages, others: [] });

/** Each SDK client package a function may load, with its client class (a floor loads the class). */
const CLIENT_CLASSES: Record<string, string> = {
  '@aws-sdk/client-api-gateway': 'APIGatewayClient',
  '@aws-sdk/client-dynamodb': 'DynamoDBClient',
  '@aws-sdk/client-kms': 'KMSClient',
  '@aws-sdk/client-s3': 'S3Client',
  '@aws-sdk/client-secrets-manager': 'SecretsManagerClient',
  '@aws-sdk/client-sqs': 'SQSClient',
  '@aws-sdk/lib-dynamodb': 'DynamoDBDocumentClient',
};

/**
 * Packages the project imports that the SDK's clients load themselves (the document client's
 * marshalling, Smithy's retry strategies and HTTP handler): a floor that loads the client loads them.
 * `buildFloors` checks that it does.
 */
const CARRIED_BY_CLIENTS: ReadonlySet<string> = new Set([
  '@aws-sdk/util-dynamodb',
  '@smithy/core',
  '@smithy/node-http-handler',
]);

/**
 * How a floor uses a package, in its documented way, for the same request its function answers: what
 * it imports and makes at load (`imports`, `setup`), a middy middleware it runs (`middleware`), or a
 * step before its calls (`step`, with `event` in scope).
 */
interface PackageUse {
  imports: string;
  setup?: string;
  middleware?: string;
  step?: string;
}

const PACKAGE_USES: Record<string, PackageUse> = {
  // The request's path parameters validated by a small schema, as the function validates its request.
  valibot: {
    imports: `import * as v from 'valibot';`,
    setup: 'const pathSchema = v.record(v.string(), v.string());',
    step: 'v.parse(pathSchema, event.pathParameters ?? {});',
  },
  // The body parsed by the parser the function parses it with; a request without one (a GET, which
  // sends no Content-Type) is left as it is, as the function leaves it.
  '@middy/http-json-body-parser': {
    imports: `import httpJsonBodyParser from '@middy/http-json-body-parser';`,
    middleware: 'httpJsonBodyParser({ disableContentTypeError: true })',
  },
};

/** A floor's name: its kind and the packages it loads besides the DynamoDB client (`getCompany+middy+kms+valibot`). */
export function floorName(kind: FloorKind, { clients, middy, others }: FloorPackages): string {
  const short = (name: string) => name.replace(/^@aws-sdk\/(client-)?/, '').replace(/^@middy\//, '');
  const extra = clients.filter((c) => c !== '@aws-sdk/client-dynamodb').map(short);
  const used = others.filter((p) => !CARRIED_BY_CLIENTS.has(p)).map(short);
  return [kind, ...(middy ? ['middy'] : []), ...extra, ...used].join('+');
}

/**
 * The source of the floor of `kind` built from `packages`, the public packages its function loads: each
 * SDK client's class loaded (and kept, so esbuild leaves it in), each other package used as
 * `PACKAGE_USES` says, and the handler run in middy's core when the function's is. What the floor then
 * does is only the calls of its kind.
 */
export function floorSource(kind: FloorKind, { clients, middy, others }: FloorPackages): string {
  const noClass = clients.filter((c) => !(c in CLIENT_CLASSES));
  const noUse = others.filter((p) => !(p in PACKAGE_USES) && !CARRIED_BY_CLIENTS.has(p));
  if (noClass.length > 0 || noUse.length > 0) {
    throw new Error(`no floor use of ${[...noClass, ...noUse].join(', ')} (test/bench/floors.ts)`);
  }
  const uses = others.flatMap((p) => PACKAGE_USES[p] ?? []);
  const middlewares = uses.flatMap((use) => use.middleware ?? []);
  if (!middy && middlewares.length > 0) throw new Error(`${kind}: a middy middleware without middy's core`);
  const steps = uses.flatMap((use) => use.step ?? []);
  const run =
    steps.length > 0
      ? `const run = async (event) => {\n  ${steps.join('\n  ')}\n  return handle(event);\n};`
      : 'const run = handle;';
  return [
    ...(middy ? [`import middy from '@middy/core';`] : []),
    ...clients.map((c, i) => `import { ${CLIENT_CLASSES[c]} as Client${i} } from '${c}';`),
    ...uses.map((use) => use.imports),
    ...uses.flatMap((use) => use.setup ?? []),
    FLOOR_SOURCES[kind],
    `export const sdkClients = [${clients.map((_, i) => `Client${i}`).join(', ')}];`,
    run,
    middy
      ? `export const handler = middy()${middlewares.map((m) => `.use(${m})`).join('')}.handler(run);`
      : 'export const handler = run;',
    '',
  ].join('\n');
}
