/**
 * How every function is bundled: the CDK construct (NodejsFunction) and the benchmark build from
 * these same settings, so the benchmark measures what gets deployed.
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
} as const;
