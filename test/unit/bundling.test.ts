/**
 * The function bundles take their AWS credentials from the environment only (infra/bundling.ts aliases
 * the SDK's default chain away); what runs unbundled (CLIs, the local stage, tests) keeps the full chain.
 */
import path from 'node:path';
import { build } from 'esbuild';
import { bundlingSettings } from '../../infra/bundling';

const ROOT = path.join(__dirname, '..', '..');

/** The node_modules packages a bundle of `entry` is built from, with the functions' settings. */
async function bundledPackages(entry: string, alias: Record<string, string>): Promise<Set<string>> {
  const { metafile } = await build({
    entryPoints: [path.join(ROOT, entry)],
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: bundlingSettings.target,
    mainFields: [...bundlingSettings.mainFields],
    external: [...bundlingSettings.externalModules],
    alias,
    absWorkingDir: ROOT,
    write: false,
    metafile: true,
    logLevel: 'silent',
  });
  const packages = Object.keys(metafile.inputs).flatMap((file) => {
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

  it('without the alias would carry the whole chain (what the CLIs and the local stage load)', async () => {
    const packages = await bundledPackages('functions/get-company-financials.ts', {});

    for (const name of CHAIN.slice(0, 3)) expect(packages).toContain(name);
  }, 30_000);
});
