/** The route table is the one list of endpoints: each route has exactly one handler file, named after its id. */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { handlerEntry } from '../../lib/http/route';
import { authorizer, routes, routesByDomain, workers } from '../../lib/routes';

const ROOT = path.join(__dirname, '..', '..');
const domainRoutes = Object.entries(routesByDomain).flatMap(([domain, declared]) =>
  Object.keys(declared).map((routeId) => ({ domain, routeId })),
);

describe('route table', () => {
  it('derives the handler file from the route id in kebab case', () => {
    expect(handlerEntry('getCompanyFinancialsBulk')).toBe('functions/get-company-financials-bulk.ts');
    expect(handlerEntry('getHealth')).toBe('functions/get-health.ts');
  });

  it('is composed of every domain route, none shadowing another', () => {
    expect(domainRoutes.map((r) => r.routeId).sort()).toEqual(Object.keys(routes).sort());
  });

  it('has one route per method and path', () => {
    const signatures = Object.values(routes).map((r) => `${r.method} ${r.path}`);
    expect(new Set(signatures).size).toBe(signatures.length);
  });

  it('has a handler file for every route and worker, and no other handler file', () => {
    const files = readdirSync(path.join(ROOT, 'functions')).map((f) => `functions/${f}`);
    const expected = [
      ...Object.keys(routes).map(handlerEntry),
      authorizer.entry,
      ...Object.values(workers).map((w) => w.entry),
    ];
    expect(files.sort()).toEqual(expected.sort());
  });

  it.each(domainRoutes)(
    '$routeId: its handler uses its own route from its own domain only',
    ({ domain, routeId }) => {
      const source = readFileSync(path.join(ROOT, handlerEntry(routeId)), 'utf8');
      // Its own route by name (the bundle then carries no other route of the domain).
      expect(source).toMatch(
        new RegExp(
          `^import \\{[^}]*\\b${routeId} as route\\b[^}]*\\} from '\\.\\./lib/${domain}/routes';$`,
          'm',
        ),
      );
      expect(source).toMatch(/\bendpoint\(route\b/);
      // The composed table would bundle every domain's schemas into this function.
      expect(source).not.toMatch(/from '\.\.\/lib\/routes'/);
    },
  );
});
