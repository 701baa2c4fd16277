/**
 * The function bundles take their AWS credentials from the environment only (infra/bundling.ts aliases
 * the SDK's default chain away); what runs unbundled (CLIs, the local stage, tests) keeps the full chain.
 * And loading a bundle does not load Node's web streams (middy imports them for streamed responses only).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { build, type BuildOptions } from 'esbuild';
import { bundlingSettings } from '../../infra/bundling';

const ROOT = path.join(__dirname, '..', '..');

/** The functions' bundle settings (infra/bundling.ts) for `entry`, with `alias` and what else is given. */
const functionBuild = (entry: string, options: BuildOptions = {}): BuildOptions => ({
  entryPoints: [path.isAbsolute(entry) ? entry : path.join(ROOT, entry)],
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: bundlingSettings.target,
  mainFields: [...bundlingSettings.mainFields],
  external: [...bundlingSettings.externalModules],
  alias: bundlingSettings.alias,
  define: { ...bundlingSettings.define },
  absWorkingDir: ROOT,
  logLevel: 'silent',
  ...options,
});

/** The files a bundle of `entry` is built from. */
async function bundledFiles(entry: string, alias = bundlingSettings.alias): Promise<string[]> {
  const { metafile } = await build(functionBuild(entry, { alias, write: false, metafile: true }));
  return Object.keys(metafile!.inputs);
}

/** The node_modules packages a bundle of `entry` is built from, with the functions' settings. */
async function bundledPackages(entry: string, alias: Record<string, string>): Promise<Set<string>> {
  const inputs = await bundledFiles(entry, alias);
  const packages = inputs.flatMap((file) => {
    const match = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(file);
    return match ? [match[1]!] : [];
  });
  return new Set(packages);
}

const CHAIN = [
  '@aws-sdk/credential-provider-node',
  '@aws-sdk/credential-provider-ini',
  '@aws-sdk/credential-provider-sso',
  '@aws-sdk/credential-provider-process',
  '@aws-sdk/credential-provider-web-identity',
  '@smithy/credential-provider-imds',
];

describe('function bundles', () => {
  it('carry the environment-variable credential provider and none of the rest of the default chain', async () => {
    const packages = await bundledPackages('functions/get-company-financials.ts', bundlingSettings.alias);

    expect(packages).toContain('@aws-sdk/client-dynamodb');
    expect(packages).toContain('@aws-sdk/credential-provider-env');
    for (const name of CHAIN) expect(packages).not.toContain(name);
  }, 30_000);

  it('carry no event-stream code: no function calls an operation with an event stream', async () => {
    const inputs = await bundledFiles('functions/import-partition.ts');

    expect(inputs).toContain('lib/storage/no-event-streams.ts');
    expect(inputs.filter((file) => file.includes('submodules/event-streams/'))).toEqual([]);
  }, 30_000);

  it('without the alias would carry the whole chain (what the CLIs and the local stage load)', async () => {
    const packages = await bundledPackages('functions/get-company-financials.ts', {});

    for (const name of CHAIN.slice(0, 3)) expect(packages).toContain(name);
  }, 30_000);
});

describe('loading a function bundle', () => {
  it("leaves Node's web streams unloaded, and the function answers", async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'bundling-test-'));
    try {
      const outfile = path.join(dir, 'get-health.js');
      await build(functionBuild('functions/get-health.ts', { outfile }));
      // What Node loads at start (a few web stream helpers among them) does not count: only what the bundle adds.
      const script = path.join(dir, 'load.cjs');
      writeFileSync(
        script,
        `const before = new Set(process.moduleLoadList);
        const { handler } = require(${JSON.stringify(outfile)});
        const loaded = process.moduleLoadList.filter((m) => !before.has(m) && /stream.web|webstreams/.test(m));
        handler({ httpMethod: 'GET', headers: {}, requestContext: { requestId: 'r' } }, { getRemainingTimeInMillis: () => 10000 })
          .then((r) => process.stderr.write(JSON.stringify({ loaded, status: r.statusCode, body: r.body })));`,
      );
      const out = spawnSync(process.execPath, [script], { encoding: 'utf8' }).stderr;

      expect(JSON.parse(out)).toEqual({ loaded: [], status: 200, body: '{"status":"ok"}' });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 30_000);

  it("builds the import workers' S3 client, which refuses an event stream if one is ever asked for", async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'bundling-test-'));
    try {
      const entry = path.join(dir, 's3.ts');
      writeFileSync(
        entry,
        `import { S3Client } from '@aws-sdk/client-s3';
        const client = new S3Client({ region: 'eu-west-1' });
        export const marshaller = client.config.eventStreamMarshaller;`,
      );
      const outfile = path.join(dir, 's3.js');
      await build(functionBuild(entry, { nodePaths: [path.join(ROOT, 'node_modules')], outfile }));
      const { marshaller } = jest.requireActual<{ marshaller: { deserialize: () => unknown } }>(outfile);

      expect(() => marshaller.deserialize()).toThrow(/left out of the function bundles/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 30_000);

  it('the stand-in for node:stream/web hands out the same classes', () => {
    const real = jest.requireActual<Record<string, unknown>>('node:stream/web');
    const standIn = jest.requireActual<Record<string, unknown>>('../../lib/http/lazy-web-streams');

    expect(Object.keys(standIn).sort()).toEqual(Object.keys(real).sort());
    for (const name of Object.keys(real)) expect(standIn[name]).toBe(real[name]);
  });
});
