/**
 * The published contract is generated from the route table (`npm run openapi`): what is committed must
 * be what the code generates, and the document must cover every route with every status it can give.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import {
  conflictCodesOf,
  errorStatusesOf,
  pathParameters,
  statusesOf,
} from '../../infra/openapi/error-statuses';
import { buildDocument, DOCUMENT_FILE, documentMark, PAGE_FILE, ROOT } from '../../infra/openapi/build';
import type { Route } from '../../lib/http/route';
import { routes } from '../../lib/routes';

const STALE = 'is stale: run `npm run openapi` and commit the result';
const read = (file: string) => readFileSync(path.join(ROOT, file), 'utf8');
const document = buildDocument();
const operations = (Object.entries(routes) as Array<[string, Route]>).map(([routeId, route]) => ({
  routeId,
  route,
  operation: document.paths[route.path]?.[route.method.toLowerCase()],
}));

describe('the OpenAPI document', () => {
  it(`docs/openapi.json, its types and the reference page are what the code generates (else they ${STALE})`, () => {
    // Prettier and openapi-typescript load ES modules, which jest (CommonJS) cannot: the command checks.
    const tsx = path.join(ROOT, 'node_modules', '.bin', 'tsx');
    const run = spawnSync(tsx, ['infra/cli/openapi.ts', '--check'], { cwd: ROOT, encoding: 'utf8' });
    expect({ status: run.status, stderr: run.stderr.replace(/^npm warn.*\n/gm, '') }).toEqual({
      status: 0,
      stderr: '',
    });
  });

  it('the reference page inlines Redoc: it loads nothing from elsewhere', () => {
    const page = JSON.parse(read(PAGE_FILE)) as string;
    expect(page.split('\n', 1)[0]).toBe(documentMark(read(DOCUMENT_FILE)));
    // Redoc's scripts are inlined: the page loads nothing from elsewhere.
    expect(page).not.toMatch(/<script[^>]+src=|<link[^>]+href="http/);
  });

  it('is OpenAPI 3.1 with one operation per route, and nothing else', () => {
    expect(document.openapi).toBe('3.1.0');
    const documented = Object.entries(document.paths).flatMap(([p, methods]) =>
      Object.keys(methods as object).map((m) => `${m.toUpperCase()} ${p}`),
    );
    expect(documented.sort()).toEqual(
      Object.values(routes)
        .map((r) => `${r.method} ${r.path}`)
        .sort(),
    );
  });

  it.each(operations)(
    '$routeId: id, scope, parameters and every status it can give',
    ({ routeId, route, operation }) => {
      expect(operation.operationId).toBe(routeId);
      expect(operation.security).toEqual(route.scope === null ? [] : [{ bearerAuth: [route.scope] }]);
      const pathNames =
        operation.parameters
          ?.filter((p: { in: string }) => p.in === 'path')
          .map((p: { name: string }) => p.name) ?? [];
      expect(pathNames).toEqual(pathParameters(route.path));
      expect(Object.keys(operation.responses).map(Number)).toEqual(statusesOf(route));
      if (route.scope !== null)
        expect(Object.keys(operation.responses)).toEqual(expect.arrayContaining(['401', '403']));
      for (const error of errorStatusesOf(route)) {
        if (error.status === '409') continue;
        expect(operation.responses[error.status]).toEqual({ $ref: `#/components/responses/${error.name}` });
      }
      // 409 only where the route can conflict, its body's code one of the route's own.
      const codes = conflictCodesOf(route);
      if (codes.length === 0) expect(operation.responses['409']).toBeUndefined();
      else {
        expect(operation.responses['409'].content['application/json'].schema).toEqual({
          allOf: [
            { $ref: '#/components/schemas/Error' },
            { type: 'object', properties: { code: { enum: codes } } },
          ],
        });
      }
    },
  );

  it('shows a real answer on the demo data as the example of every JSON success (docs/examples.json)', () => {
    for (const { routeId, route, operation } of operations) {
      const success = operation.responses[String(route.status ?? 200)];
      const json = success.content?.['application/json'];
      if (!json || route.path === '/v1/openapi.json') continue;
      expect({ routeId, example: json.example !== undefined }).toEqual({ routeId, example: true });
    }
  });

  it('every error answer has the contract error body', () => {
    for (const response of Object.values(document.components.responses) as Array<{
      content: Record<string, { schema: unknown }>;
    }>) {
      expect(response.content['application/json']?.schema).toEqual({ $ref: '#/components/schemas/Error' });
    }
    expect(document.components.schemas.Error.required).toEqual(['message', 'code', 'requestId']);
    expect(Object.keys(document.components.schemas.Error.properties)).toEqual([
      'message',
      'code',
      'requestId',
      'details',
    ]);
  });

  it('writes the API decisions page into its description', () => {
    const decisions = read('docs/decisions.md');
    const firstDecision = decisions.split('\n- ')[1]!.split('\n')[0]!;
    expect(document.info.description).toContain(firstDecision);
  });
});
