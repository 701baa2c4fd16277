/**
 * A real headless Chromium (Debian's `chromium` package) driven by playwright-core, for the reference
 * page test and `npm run docs:screenshot` (playwright-core: CommonJS, which jest can load). Nothing downloads a browser: where Chromium is missing, this
 * says so and how to install it (.ci/run installs it in CI).
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';

export const CHROMIUM = process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium';

export const CHROMIUM_MISSING = `Chromium is not installed at ${CHROMIUM}: apt-get install -y chromium (or set CHROMIUM_PATH)`;

export const chromiumInstalled = (): boolean => existsSync(CHROMIUM);

/** A fresh browser with its own new profile directory (--user-data-dir), removed again by `close()`. */
export async function launchChromium(): Promise<{ browser: BrowserContext; close: () => Promise<void> }> {
  if (!chromiumInstalled()) throw new Error(CHROMIUM_MISSING);
  const profile = mkdtempSync(path.join(tmpdir(), 'chromium-'));
  // Playwright passes the profile directory on as --user-data-dir.
  const browser = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  return {
    browser,
    close: async () => {
      await browser.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
