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
   * Modules replaced in function bundles (esbuild `alias`; paths relative to the project root). The SDK's
   * default credential chain becomes its environment-variable provider: Lambda supplies credentials
   * through the environment, and the rest of the chain is ~130 KB loaded at every cold start for nothing
   * (bundle 361 → 229 KB). Only the function bundles: the CLIs and the local stage run unbundled, with
   * the full chain (SSO, profiles, instance roles).
   */
  alias: {
    '@aws-sdk/credential-provider-node': './lib/storage/lambda-credentials.ts',
    /**
     * @middy/core imports `node:stream/web` for streamed responses, which no function sends; loading
     * Node's web streams was most of get-health's cold start. The stand-in reads Node's globals (the same
     * classes) when used.
     */
    'node:stream/web': './lib/http/lazy-web-streams.ts',
    /** The DynamoDB client's endpoint-discovery cache, as a Map (~7 KB less; lib/storage/lru-cache.ts). */
    'mnemonist/lru-cache': './lib/storage/lru-cache.ts',
    /** @middy/http-json-body-parser needs only `createError` of it; the rest is a status table (~1.7 KB). */
    '@middy/util': './lib/http/middy-util.ts',
    /** Loaded by the SDK only for an operation with an event stream, which no function calls (~19 KB). */
    '@smithy/core/event-streams': './lib/storage/no-event-streams.ts',
  } as Readonly<Record<string, string>>,
  /**
   * Global identifiers replaced in function bundles (esbuild `define`). Every function runs on the stack,
   * where IAM enforces its declared storage access (the stack also sets STORAGE_ACCESS_ENFORCED_BY_IAM):
   * the client's in-process check (lib/storage/client.ts) folds away, and lib/storage/access-check.ts
   * with it (~2 KB). What runs unbundled (the local stage, the CLIs, the tests) keeps the check.
   */
  define: {
    IAM_ENFORCES_STORAGE_ACCESS: 'true',
  } as Readonly<Record<string, string>>,
} as const;
