/**
 * The bench's bundles: every function as NodejsFunction bundles it, and the floors (the bare SDK) beside
 * them, written to the run's work directory.
 */
import { statSync } from 'node:fs';
import path from 'node:path';
import { build, type BuildOptions } from 'esbuild';
import { bundlingSettings } from '../../infra/bundling';
import { handlerEntry } from '../../lib/http/route';
import { authorizer, routes, type RouteId } from '../../lib/routes';
import type { FunctionId } from './cases';
import { FLOOR_SOURCES, type FloorKind } from './runners';

const ROOT = path.join(__dirname, '..', '..');

export interface Subject {
  /** The bundle on disk (temp dir). */
  file: string;
  bytes: number;
}

/**
 * The settings NodejsFunction bundles with (infra/function.ts), so the sizes are the deployed ones. The
 * floors are the bare SDK as published, with its full default credential chain: they leave out the
 * functions' aliases.
 */
export function buildOptions(outfile: string, { aliases = true } = {}): BuildOptions {
  return {
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: bundlingSettings.target,
    minify: bundlingSettings.minify,
    sourcemap: bundlingSettings.sourceMap,
    mainFields: [...bundlingSettings.mainFields],
    external: [...bundlingSettings.externalModules],
    alias: aliases ? { ...bundlingSettings.alias } : {},
    define: { ...bundlingSettings.define },
    absWorkingDir: ROOT,
    outfile,
    logLevel: 'warning',
  };
}

export async function buildFunctions(workDir: string): Promise<Record<FunctionId, Subject>> {
  const entries = Object.fromEntries([
    ...(Object.keys(routes) as RouteId[]).map((id) => [id, handlerEntry(id)] as const),
    ['authorizer', authorizer.entry] as const,
  ]) as Record<FunctionId, string>;
  const built = await Promise.all(
    (Object.keys(entries) as FunctionId[]).map(async (id) => {
      const file = path.join(workDir, `${id}.js`);
      await build({ ...buildOptions(file), entryPoints: [path.join(ROOT, entries[id])] });
      return [id, { file, bytes: statSync(file).size }] as const;
    }),
  );
  return Object.fromEntries(built) as Record<FunctionId, Subject>;
}

export async function buildFloors(workDir: string): Promise<Record<FloorKind, Subject>> {
  const built = await Promise.all(
    (Object.keys(FLOOR_SOURCES) as FloorKind[]).map(async (kind) => {
      const file = path.join(workDir, `floor-${kind}.js`);
      await build({
        ...buildOptions(file, { aliases: false }),
        // Resolved from the project, so the floors bundle the same pinned SDK as the functions.
        stdin: {
          contents: FLOOR_SOURCES[kind],
          resolveDir: ROOT,
          sourcefile: `floor-${kind}.js`,
          loader: 'js',
        },
      });
      return [kind, { file, bytes: statSync(file).size }] as const;
    }),
  );
  return Object.fromEntries(built) as Record<FloorKind, Subject>;
}
