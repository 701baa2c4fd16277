/**
 * `npm run docs:screenshot [-- --out FILE] [--base-url URL]`: a screenshot of the reference page
 * (GET /v1/docs) in headless Chromium. Without --base-url it serves the page itself from the local
 * gateway (no storage needed: the page is public and static). Default output: docs/reference.png.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { createGateway } from '../../infra/local/gateway';
import { launchChromium } from '../support/browser';

const { values } = parseArgs({
  options: { out: { type: 'string' }, 'base-url': { type: 'string' }, width: { type: 'string' } },
});
const out = path.resolve(values.out ?? path.join(__dirname, '..', '..', 'docs', 'reference.png'));

async function main(): Promise<void> {
  let server: http.Server | undefined;
  let baseUrl = values['base-url']?.replace(/\/+$/, '');
  if (!baseUrl) {
    server = createGateway();
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }
  const { browser, close } = await launchChromium();
  try {
    const page = await browser.newPage();
    await page.setViewportSize({ width: Number(values.width ?? 1400), height: 900 });
    await page.goto(`${baseUrl}/v1/docs`, { waitUntil: 'networkidle', timeout: 60000 });
    await page.locator('#redoc').waitFor({ timeout: 30000 });
    await page.screenshot({ path: out });
    console.log(`wrote ${out}`);
  } finally {
    await close();
    server?.closeAllConnections();
    server?.close();
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
