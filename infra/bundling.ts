import { featureDefine } from '../lib/http/features';
import type { Route } from '../lib/http/route';

/**
 * How every function is bundled: the CDK construct (NodejsFunction, infra/function.ts) and the benchmark
 * build from these same settings, so the benchmark measures what gets deployed.
 */
export const bundlingSettings = {
  /** esbuild target; the Lambda runtime is Node.js 24 (infra/function.ts), 22+ needs no down-levelling. */
  target: 'node22',
  minify: true,
  /** Source maps are produced (for offline decoding) but not enabled at run time: --enable-source-maps slows cold starts. */
  sourceMap: true,
  /** Prefer ES module builds so esbuild can tree-shake the AWS SDK, middy and valibot. */
  mainFields: ['module', 'main'],
  /** Bundle the AWS SDK: a pinned, tree-shaken copy loads faster than the runtime's full one. */
  externalModules: [] as string[],
  /**
   * Global identifiers replaced in function bundles (esbuild `define`). Every function runs on the stack,
   * where IAM enforces its declared storage access (the stack also sets STORAGE_ACCESS_ENFORCED_BY_IAM):
   * the client's in-process check (lib/storage/client.ts) folds away, and lib/storage/access-check.ts
   * with it. What runs unbundled (the local stage, the CLIs, the tests) keeps the check.
   */
  define: {
    IAM_ENFORCES_STORAGE_ACCESS: 'true',
  } as Readonly<Record<string, string>>,
  /**
   * Syntax esbuild may leave as written (esbuild `supported`). Node.js 22+ has regular expression Unicode
   * property escapes (`\\p{…}`), but esbuild does not count them as supported by that target, so it turns such
   * a literal into a `new RegExp(…)` call: a call runs at load, where a literal is compiled on first use,
   * and valibot's emoji pattern (which no schema here uses) would be built in every bundle.
   */
  supported: {
    'regexp-unicode-property-escapes': true,
  } as Readonly<Record<string, boolean>>,
} as const;

/**
 * The esbuild `define` of one function: the shared settings', and for a route's function the endpoint's
 * parts its route uses (lib/http/features.ts), read from the route table, so its bundle drops the rest.
 */
export function functionDefine(route?: Route): Record<string, string> {
  return { ...bundlingSettings.define, ...(route ? featureDefine(route) : {}) };
}
