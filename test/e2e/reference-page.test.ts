/**
 * GET /v1/docs in a real headless Chromium: the reference page renders every operation of the document,
 * with nothing fetched from anywhere but the API itself (Redoc is inlined; no CDN at run time).
 * Without Chromium the test cannot run: it fails in CI (CI=true; .ci/run installs Chromium) and is
 * skipped elsewhere under a title that says why — never a silent pass.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createGateway } from '../../infra/local/gateway';
import type { Route } from '../../lib/http/route';
import { routesByDomain } from '../../lib/routes';
import { CHROMIUM_MISSING, chromiumInstalled, launchChromium } from '../support/browser';

const canRun = chromiumInstalled() || process.env['CI'] === 'true';
const test = canRun ? it : it.skip;
const title = canRun
  ? 'lists every operation of the document and loads nothing from elsewhere'
  : `NOT RUN: ${CHROMIUM_MISSING}`;

let server: http.Server;
let baseUrl = '';

beforeAll(async () => {
  server = createGateway();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

describe('the reference page (GET /v1/docs)', () => {
  test(title, async () => {
    const { browser, close } = await launchChromium();
    try {
      const page = await browser.newPage();
      // Requests to anywhere but the API: the page's Content-Security-Policy must block each one.
      const elsewhere: string[] = [];
      const isElsewhere = (url: string) =>
        !url.startsWith(baseUrl) && !url.startsWith('data:') && !url.startsWith('blob:');
      page.on('requestfinished', (request) => {
        if (isElsewhere(request.url())) elsewhere.push(`${request.url()} loaded`);
      });
      page.on('requestfailed', (request) => {
        const reason = request.failure()?.errorText ?? '';
        if (isElsewhere(request.url()) && !/^csp$|BLOCKED_BY_CSP/i.test(reason)) {
          elsewhere.push(`${request.url()} attempted (${reason})`);
        }
      });
      const response = await page.goto(`${baseUrl}/v1/docs`, { waitUntil: 'networkidle', timeout: 60000 });
      expect(response?.status()).toBe(200);
      expect(response?.headers()['content-type']).toMatch(/^text\/html/);
      // Redoc lists a tag's operations once the tag is opened in the side menu (one tag per domain).
      for (const [domain, domainRoutes] of Object.entries(routesByDomain)) {
        await page.click(`a[href="/${domain}"]`);
        for (const [routeId, route] of Object.entries(domainRoutes as Record<string, Route>)) {
          // The side menu lists every operation by its summary and method (Redoc renders an operation's
          // own panel lazily, once scrolled to, so the menu is what is always there).
          const entry = page.locator(`a[href="#/${domain}/${routeId.toLowerCase()}"]`).first();
          await entry.waitFor({ timeout: 15000 });
          const text = (await entry.innerText()).replace(/\s+/g, ' ').trim();
          expect(text.endsWith(route.method)).toBe(true);
          expect(text).toContain(route.summary.slice(0, 20));
        }
      }
      expect(elsewhere).toEqual([]);
    } finally {
      await close();
    }
  });
});

/**
 * The README's header promises hold for the documents too: never stored on the way (`no-store`), and
 * `x-request-id` on every answer. They carry no `Content-Language`: they are English only, not
 * translated text (only translated answers carry it).
 */
describe('the documents carry the headers of every answer', () => {
  it.each(['/v1/docs', '/v1/openapi.json'])('%s: no-store and x-request-id', async (path) => {
    const response = await fetch(`${baseUrl}${path}`);
    await response.arrayBuffer();

    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(response.headers.get('x-request-id')).toBeTruthy();
    expect(response.headers.get('content-language')).toBeNull();
  });
});
