/**
 * Every schema a module builds at load can be dropped by esbuild from a function that does not use it.
 * esbuild does not carry valibot's `@__NO_SIDE_EFFECTS__` to calls made from another module
 * (evanw/esbuild#4369), so a schema module's top-level calls are marked `/* @__PURE__ *\/` (valibot's and
 * our schema helpers'), and what esbuild keeps whatever its annotation (a property read, a spread, a
 * template with a value in it) is kept out of their arguments: a named const, or the helper's own body.
 * test/infra/bundles.test.ts checks the outcome in the bundles.
 */
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

const ROOT = path.join(__dirname, '..', '..');

/** The modules that build schemas at load: each domain's schemas and routes, and their building blocks. */
function schemaModules(): string[] {
  const lib = path.join(ROOT, 'lib');
  return readdirSync(lib, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .flatMap((dir) =>
      readdirSync(path.join(lib, dir.name))
        .filter((file) => /(^|-)(schemas|routes)\.ts$/.test(file) || file === 'filters.ts')
        .map((file) => `lib/${dir.name}/${file}`),
    )
    .sort();
}

/** What in one module's top-level initializers (`text`, the file's unless given) esbuild would keep although unused. */
function keptAtLoad(file: string, text = readFileSync(path.join(ROOT, file), 'utf8')): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  // `v.object`, `partitions.company`: a namespace import's member is a plain reference once bundled.
  const namespaces = new Set(
    source.statements.flatMap((s) =>
      ts.isImportDeclaration(s) &&
      s.importClause?.namedBindings &&
      ts.isNamespaceImport(s.importClause.namedBindings)
        ? [s.importClause.namedBindings.name.text]
        : [],
    ),
  );
  const found: string[] = [];
  const where = (node: ts.Node) =>
    `${file}:${source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1}`;
  // `inCall`: within a call's arguments, where whatever esbuild keeps keeps the call.
  const visit = (node: ts.Node, inCall: boolean): void => {
    // A function's body runs when it is called, not at load.
    if (ts.isArrowFunction(node) || ts.isFunctionExpression(node)) return;
    const call = ts.isCallExpression(node) || ts.isNewExpression(node);
    if (call) {
      const before = text.slice(node.getFullStart(), node.getStart(source));
      if (!/\/\*\s*@__PURE__\s*\*\/\s*$/.test(before)) {
        found.push(`${where(node)} unmarked call ${node.expression.getText(source)}(…)`);
      }
    }
    if (inCall) {
      const callee = ts.isCallExpression(node.parent) && node.parent.expression === node;
      if (
        ts.isPropertyAccessExpression(node) &&
        !callee &&
        !(ts.isIdentifier(node.expression) && namespaces.has(node.expression.text))
      ) {
        found.push(`${where(node)} property read ${node.getText(source)}`);
      }
      if (ts.isSpreadAssignment(node) || ts.isSpreadElement(node)) {
        found.push(`${where(node)} spread ${node.getText(source)}`);
      }
      if (ts.isTemplateExpression(node)) found.push(`${where(node)} template with a value in a call`);
    }
    ts.forEachChild(node, (child) => visit(child, inCall || call));
  };
  for (const statement of source.statements) {
    if (!ts.isVariableStatement(statement)) continue;
    for (const declaration of statement.declarationList.declarations) {
      if (declaration.initializer) visit(declaration.initializer, false);
    }
  }
  return found;
}

it('finds the schema modules', () => {
  expect(schemaModules()).toEqual(
    expect.arrayContaining([
      'lib/companies/details-schemas.ts',
      'lib/companies/schemas.ts',
      'lib/http/schemas.ts',
      'lib/lists/filters.ts',
      'lib/health/routes.ts',
    ]),
  );
});

it('builds nothing at load that esbuild could not drop from a function that does not use it', () => {
  expect(schemaModules().flatMap((file) => keptAtLoad(file))).toEqual([]);
});

it('tells an unmarked call, a property read, a spread and a template in a schema', () => {
  const file = 'lib/example/schemas.ts';
  const text = [
    "import * as v from 'valibot';",
    'const max = { n: 1 };',
    'export const a = v.string();',
    'export const b = /* @__PURE__ */ v.maxValue(max.n);',
    'export const c = /* @__PURE__ */ v.object({ ...max });',
    'export const d = /* @__PURE__ */ v.string(`at most ${1}`);',
    'export const e = /* @__PURE__ */ v.check((x: string) => x.length > max.n);',
  ].join('\n');
  expect(keptAtLoad(file, text)).toEqual([
    `${file}:3 unmarked call v.string(…)`,
    `${file}:4 property read max.n`,
    `${file}:5 spread ...max`,
    `${file}:6 template with a value in a call`,
  ]);
});
