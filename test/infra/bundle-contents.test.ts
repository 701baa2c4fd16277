/**
 * What each function's bundle carries, as the stack bundles it (infra/bundling.ts through the bench's
 * build options): only the endpoint's parts its route uses, only its own route, keys and schemas, no
 * replaced dependency module, and what its floor must load (test/bench/bundles.ts). The bundles are
 * read as text; test/infra/bundles.test.ts loads and calls them.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { build, stop } from 'esbuild';
import ts from 'typescript';
import { bundlingSettings, functionDefine } from '../../infra/bundling';
import { endpointFeatures } from '../../lib/http/features';
import { handlerEntry } from '../../lib/http/route';
import { routes, type RouteId } from '../../lib/routes';
import { buildFloors, buildFunctions, buildOptions, type FunctionBundle } from '../bench/bundles';
import type { FunctionId } from '../bench/bench-case';
import { answerOf, bundleCaller } from '../support/bundle-caller';

const ROOT = path.join(__dirname, '..', '..');
jest.setTimeout(300_000);

const dir = mkdtempSync(path.join(os.tmpdir(), 'bundle-contents-'));
const callBundle = bundleCaller(dir);
let built: Record<FunctionId, FunctionBundle>;
beforeAll(async () => {
  built = await buildFunctions(dir);
});
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  // esbuild's service process, which `build` started.
  await stop();
});

// Each route's function carries only the endpoint's parts its route uses (lib/http/features.ts, from the
// route table through infra/bundling.ts `functionDefine`): a text of the part tells whether it is there.
it("carries only the endpoint's parts its route uses", () => {
  const carried = (id: RouteId) => {
    const text = readFileSync(built[id].file, 'utf8');
    return {
      jsonBody: text.includes('must not nest arrays and objects more than'),
      validation: text.includes('must be an integer between'),
      // The request scopes that count DynamoDB calls and hold the storage declaration (lib/request-scope.ts).
      storage: text.includes('AsyncLocalStorage'),
      // Accept-Language's quality parameter (lib/http/language.ts).
      language: text.includes(String.raw`q\s*=\s*`),
    };
  };
  expect(carried('getHealth')).toEqual({
    jsonBody: false,
    validation: false,
    storage: false,
    language: false,
  });
  expect(carried('getCompany')).toEqual({
    jsonBody: false,
    validation: true,
    storage: true,
    language: false,
  });
  expect(carried('createList')).toEqual({ jsonBody: true, validation: true, storage: true, language: false });
  expect(carried('getLegalEntityUpdates')).toMatchObject({ storage: true, language: true });
  // Every route that uses a part carries it; one that does not, none of it (the generated document's
  // functions are left out: the document quotes these texts).
  for (const id of Object.keys(routes) as RouteId[]) {
    if (id === 'getOpenApi' || id === 'getDocs') continue;
    const { jsonBody, validation, storage, language } = endpointFeatures(routes[id]);
    expect({ id, ...carried(id) }).toEqual({ id, jsonBody, validation, storage, language });
  }
});

// A bundle built with defines that leave out a part its route uses fails when it loads, never on a request.
it('refuses to load a function whose bundle left out a part its route uses', async () => {
  const outfile = path.join(dir, 'createList-as-health.js');
  await build({
    ...buildOptions(outfile),
    define: functionDefine(routes.getHealth),
    entryPoints: [path.join(ROOT, handlerEntry('createList'))],
  });
  const outcome = await callBundle(outfile, {}, { requestPath: true });
  expect(outcome).toMatchObject({
    stage: 'load',
    error: {
      message:
        'POST /v1/lists uses jsonBody, validation, scope, storage, left out of its bundle (infra/bundling.ts)',
    },
  });
});

// The bench holds each caller-facing function against a floor loading the same public packages
// (test/bench/bundles.ts `loadedPackages`): what a bundle loads when it loads, not what it loads on first use.
it('finds the public packages a bundle loads when it loads, for its floor to load and use them too', async () => {
  expect(built.getCompany.packages).toMatchObject({
    clients: ['@aws-sdk/client-dynamodb', '@aws-sdk/lib-dynamodb'],
    middy: true,
    others: expect.arrayContaining(['valibot']) as unknown,
  });
  expect(built.getCompany.packages.loaded).toEqual(expect.arrayContaining(['valibot', '@middy/core']));
  // A route that takes no body does not load the JSON body parser (its bundle has none of its code).
  expect(built.getCompany.packages.loaded).not.toContain('@middy/http-json-body-parser');
  expect(built.createList.packages.others).toContain('@middy/http-json-body-parser');
  // Loaded on first use: the usage meter's API Gateway client, the webhooks' KMS and SQS clients, the
  // legal entity ids' Secrets Manager client.
  expect(built.getLegalEntityUpdates.packages.clients).not.toContain('@aws-sdk/client-secrets-manager');
  expect(built.getUsage.packages.clients).not.toContain('@aws-sdk/client-api-gateway');
  expect(built.createWebhook.packages.clients).not.toContain('@aws-sdk/client-kms');
  expect(built.getWebhooks.packages.clients).not.toContain('@aws-sdk/client-sqs');
  expect(built.authorizer.packages).toMatchObject({ middy: false });
  expect(built.authorizer.packages.loaded).not.toContain('valibot');

  const withSecrets = { ...built.getCompany.packages, clients: ['@aws-sdk/client-secrets-manager'] };
  // Health's packages with createList's body parser: a floor that parses a body.
  const withBody = { ...built.getHealth.packages, others: ['@middy/http-json-body-parser', 'valibot'] };
  const floors = await buildFloors(
    dir,
    [
      { kind: 'empty', packages: built.getHealth.packages },
      { kind: 'empty', packages: withBody },
      { kind: 'getCompany', packages: withSecrets },
    ],
    { complete: false },
  );
  expect([...floors.keys()]).toEqual([
    'empty+middy+valibot',
    'empty+middy+http-json-body-parser+valibot',
    'getCompany+middy+secrets-manager+valibot',
  ]);
  // The floor validates the path and parses a JSON body with the function's packages.
  const empty = floors.get('empty+middy+http-json-body-parser+valibot')!.file;
  expect(answerOf('floor', await callBundle(empty, {}))).toEqual({ statusCode: 200, body: '{}' });
  const sent = {
    headers: { 'Content-Type': 'application/json' },
    body: '{"a":1}',
    pathParameters: { id: '1' },
  };
  expect(answerOf('floor', await callBundle(empty, sent))).toEqual({ statusCode: 200, body: '{}' });
  await expect(callBundle(empty, { pathParameters: { id: 1 } })).resolves.toMatchObject({ stage: 'call' });
  const floor = readFileSync(floors.get('getCompany+middy+secrets-manager+valibot')!.file, 'utf8');
  expect(floor).toContain('secretsmanager');

  // Each caller-facing function's floor loads every package the function loads (buildFloors checks it).
  await expect(
    buildFloors(dir, [{ id: 'getCompany', kind: 'getCompany', packages: built.getCompany.packages }]),
  ).resolves.toBeDefined();
  await expect(
    buildFloors(dir, [
      { id: 'getCompany', kind: 'getCompany', packages: { ...built.getCompany.packages, others: [] } },
    ]),
  ).rejects.toThrow(/getCompany: floor getCompany\+middy\+lib-dynamodb does not load .*valibot/);
});

// Dependencies are bundled as published: an upgrade is what these tests load and call.
it('replaces no module of any dependency', () => {
  expect(bundlingSettings).not.toHaveProperty('alias');
  expect(bundlingSettings).not.toHaveProperty('inject');
});

// What only runs unbundled is left out of every function: the in-process storage access check (IAM
// enforces the declaration: infra/bundling.ts `define`), by its middleware's name and its error's text,
// and an import's write counters (lib/storage/write-counts.ts).
it('bundles neither the in-process storage access check nor the write counters', () => {
  const markers = ['declaredAccessCheck', 'is not declared', 'writeCounter'];
  const carried = (Object.keys(built) as FunctionId[]).flatMap((id) => {
    const code = readFileSync(built[id].file, 'utf8');
    return markers.filter((marker) => code.includes(marker)).map((marker) => `${id}: ${marker}`);
  });
  expect(carried).toEqual([]);
});

// Each key is an export of its own (lib/storage/keys.ts): a bundle carries only the keys its function uses.
it('bundles only the keys its function uses', () => {
  // The keys of a list's name and of an account's list count, which creating a list writes.
  const listKeys = ['LISTNAME#', 'LIST_COUNT'];
  const company = readFileSync(built.getCompany.file, 'utf8');
  const createList = readFileSync(built.createList.file, 'utf8');
  expect(listKeys.filter((key) => company.includes(key))).toEqual([]);
  expect(listKeys.filter((key) => createList.includes(key))).toEqual(listKeys);
  // Nor the key functions of partition families its route does not name (lib/storage/partitions.ts):
  // a token's, a webhook's and the events feed's keys are the authorizer's and their own routes'.
  const otherFamilies = ['TOKEN#', 'WEBHOOK', 'EVENTS'];
  expect(otherFamilies.filter((key) => company.includes(key))).toEqual([]);
  expect(otherFamilies.filter((key) => createList.includes(key))).toEqual([]);
});

// Each route is an export of its own (lib/<domain>/routes.ts): a function's bundle carries its own route
// and none of the others (their summaries are their text). The two document routes embed every route's
// summary in the document they hand out, so they are left out.
it("bundles only its own route of the route table, not its domain's other routes", () => {
  const ids = (Object.keys(routes) as RouteId[]).filter((id) => id !== 'getOpenApi' && id !== 'getDocs');
  const carried = ids.flatMap((id) => {
    const code = readFileSync(built[id].file, 'utf8');
    expect(code).toContain(JSON.stringify(routes[id].summary));
    const others = ids.filter(
      (other) => other !== id && code.includes(JSON.stringify(routes[other].summary)),
    );
    return others.map((other) => `${id}: ${other}`);
  });
  expect(carried).toEqual([]);
});

// Schema modules' calls are marked pure (test/unit/schemas-droppable.test.ts): a function builds the
// schemas its route reaches, not every schema of a module it imports. The financial period's messages
// are in the financials' bundles only, not in the details' nor a list's (which import lib/companies/schemas.ts).
it('bundles only the schemas its route uses of the schema modules it imports', () => {
  const periodMessage = JSON.stringify('must have at most 2 decimals');
  const carrying = (['getCompanyFinancials', 'getCompany', 'getList', 'createList'] as const).filter((id) =>
    readFileSync(built[id].file, 'utf8').includes(periodMessage),
  );
  expect(carrying).toEqual(['getCompanyFinancials']);
});

// infra/bundling.ts `supported`: a pattern with a Unicode property escape stays a literal, compiled on
// first use, rather than a `new RegExp(…)` built at load (valibot's emoji pattern is one, in every bundle).
it('builds no Unicode property pattern at load', () => {
  const propertyPatternCall = /new RegExp\("(?:[^"\\]|\\.)*\\\\p\{/;
  const calls = (Object.keys(built) as FunctionId[]).filter((id) =>
    propertyPatternCall.test(readFileSync(built[id].file, 'utf8')),
  );
  expect(calls).toEqual([]);
});

/** Whether the bundle's code outside every function (what runs when it loads) holds the string `literal`. */
function atLoad(file: string, literal: string): boolean {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, false);
  let found = false;
  const visit = (node: ts.Node): void => {
    if (found || ts.isFunctionLike(node)) return;
    if (ts.isStringLiteral(node) && node.text === literal) found = true;
    else ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

// A list's filters are a lazy schema (lib/lists/filters.ts): createList carries them (a SMART list's
// create reads them) but makes them on the first request that sends filters, not when it loads.
it("makes a list's filters when first read, not when createList loads", () => {
  const message = 'must be a NACE code of 2 to 5 digits';
  expect(readFileSync(built.createList.file, 'utf8')).toContain(JSON.stringify(message));
  expect(atLoad(built.createList.file, message)).toBe(false);
});

// V8 checks every pattern literal of a bundle when it loads it, called or not, and one with a Unicode
// property escape (`/\p{M}/u`) makes it build that property's character set (about 1.5 M instructions):
// such a pattern is made on first use (`new RegExp`, lib/lists/filters.ts `placeKey`), never a literal.
it('holds no pattern literal with a Unicode property escape', () => {
  const literals = (id: FunctionId): string[] => {
    const file = built[id].file;
    const found: string[] = [];
    const visit = (node: ts.Node): void => {
      if (ts.isRegularExpressionLiteral(node) && /\\[pP]\{/.test(node.text))
        found.push(`${id}: ${node.text}`);
      ts.forEachChild(node, visit);
    };
    visit(ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true));
    return found;
  };
  expect((Object.keys(built) as FunctionId[]).flatMap(literals)).toEqual([]);
});

// A list's create sends its transaction as the low-level TransactWriteItems, its values marshalled by the
// list store (lib/lists/store/lists.ts): the document client's TransactWriteCommand (its class declares
// `inputKeyNodes`) would compile its own command and marshalling code on a cold createList's one write.
it("sends a list's create through the low-level TransactWriteItems, not the document client's", () => {
  const file = built.createList.file;
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const classes = new Map<string, string>();
  const created: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isVariableDeclaration(node) && node.initializer && ts.isClassExpression(node.initializer))
      classes.set(node.name.getText(source), node.initializer.getText(source));
    // The create's transaction: the one that moves the account's count of lists up (`ADD #n :one`).
    if (
      ts.isNewExpression(node) &&
      node.arguments?.some((a) => a.getText(source).startsWith('{TransactItems:')) &&
      node.getText(source).includes('"ADD #n :one"')
    )
      created.push(node.expression.getText(source));
    ts.forEachChild(node, visit);
  };
  visit(source);
  expect(created).toHaveLength(1);
  const command = classes.get(created[0]!) ?? '';
  expect(command).toContain('"TransactWriteItems"');
  expect(command).not.toContain('inputKeyNodes');
});

// The request log line is built by a function of its own (lib/http/endpoint.ts `logRequest`): V8 parses
// and compiles a function whole when it is first called, so a first request that is not logged (all but a
// sample of the 200s) compiles none of the line. The function each request runs only times the request.
it('builds the request log line outside the function that times every request', () => {
  for (const id of ['getHealth', 'getCompany', 'createList'] as const) {
    const file = built[id].file;
    const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
    const logging = new Set<ts.Node>();
    const timing = new Set<ts.Node>();
    const visit = (node: ts.Node, within: ts.Node | undefined): void => {
      const fn = ts.isFunctionLike(node) ? node : within;
      if (fn && ts.isPropertyAccessExpression(node) && node.getText(source) === 'performance.now')
        timing.add(fn);
      if (
        fn &&
        ts.isPropertyAssignment(node) &&
        node.name.getText(source) === 'message' &&
        ts.isStringLiteral(node.initializer) &&
        node.initializer.text === 'request'
      )
        logging.add(fn);
      ts.forEachChild(node, (child) => visit(child, fn));
    };
    visit(source, undefined);
    expect({ id, logging: logging.size }).toEqual({ id, logging: 1 });
    expect({ id, timed: [...logging].some((fn) => timing.has(fn)) }).toEqual({ id, timed: false });
  }
});
