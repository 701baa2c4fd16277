/**
 * The bench's bundles: every function as NodejsFunction bundles it, and the floors beside them, built
 * the same way (the same settings, the same pinned packages), written to the run's work directory.
 */
import { statSync } from 'node:fs';
import path from 'node:path';
import { build, type BuildOptions, type Metafile } from 'esbuild';
import { bundlingSettings, functionDefine } from '../../infra/bundling';
import { handlerEntry } from '../../lib/http/route';
import { authorizer, routes, type RouteId } from '../../lib/routes';
import type { FunctionId } from './bench-case';
import { floorName, floorSource, type FloorPackages } from './floors';
import type { FloorKind } from './floor-sources';

const ROOT = path.join(__dirname, '..', '..');

export interface Subject {
  /** The bundle on disk (temp dir). */
  file: string;
  bytes: number;
}

export interface FunctionBundle extends Subject {
  /** The public packages it loads when it loads, which its floor loads too. */
  packages: FloorPackages;
}

/** The settings NodejsFunction bundles with (infra/function.ts): the functions and the floors alike. */
export function buildOptions(outfile: string): BuildOptions {
  return {
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: bundlingSettings.target,
    minify: bundlingSettings.minify,
    sourcemap: bundlingSettings.sourceMap,
    mainFields: [...bundlingSettings.mainFields],
    external: [...bundlingSettings.externalModules],
    define: { ...bundlingSettings.define },
    supported: { ...bundlingSettings.supported },
    absWorkingDir: ROOT,
    outfile,
    logLevel: 'warning',
  };
}

/** The package a bundled file belongs to (`@aws-sdk/client-kms`), or null for a file of the project. */
const packageOf = (file: string) =>
  /node_modules\/((?:@[^/]+\/)?[^/]+)\/(?!.*node_modules\/)/.exec(file)?.[1] ?? null;

/**
 * The files a bundle loads from `entry` when it loads: reached by static imports and requires, not
 * through a dynamic import, and with code in the bundle (a module whose every export esbuild dropped,
 * such as the JSON body parser of a route that takes no body, is not loaded).
 */
function reachedFiles(metafile: Metafile, entry: string): Set<string> {
  const bundled = new Set(
    Object.values(metafile.outputs).flatMap((output) =>
      Object.entries(output.inputs)
        .filter(([, { bytesInOutput }]) => bytesInOutput > 0)
        .map(([file]) => file),
    ),
  );
  const reached = new Set<string>();
  const pending = [path.relative(ROOT, path.join(ROOT, entry))];
  while (pending.length > 0) {
    const file = pending.pop()!;
    if (reached.has(file)) continue;
    reached.add(file);
    for (const imported of metafile.inputs[file]?.imports ?? []) {
      if (imported.kind !== 'dynamic-import' && !imported.external) pending.push(imported.path);
    }
  }
  return new Set([...reached].filter((file) => bundled.has(file)));
}

/**
 * The public packages a bundle loads when it loads (not a module loaded on first use, such as the usage
 * meter's API Gateway client): every package reached, and of them those the project's own files import
 * (a package only a dependency imports comes with that dependency).
 */
export function loadedPackages(metafile: Metafile, entry: string): FloorPackages {
  const reached = reachedFiles(metafile, entry);
  const loaded = new Set([...reached].map(packageOf).filter((p): p is string => p !== null));
  const imported = new Set(
    [...reached]
      .filter((file) => packageOf(file) === null)
      .flatMap((file) => metafile.inputs[file]?.imports ?? [])
      .filter((i) => i.kind !== 'dynamic-import' && !i.external)
      .map((i) => packageOf(i.path))
      .filter((p): p is string => p !== null && loaded.has(p)),
  );
  const clients = [...loaded].filter((p) => /^@aws-sdk\/(client|lib)-/.test(p)).sort();
  return {
    clients,
    middy: loaded.has('@middy/core'),
    others: [...imported].filter((p) => !clients.includes(p) && p !== '@middy/core').sort(),
    loaded: [...loaded].sort(),
  };
}

export async function buildFunctions(workDir: string): Promise<Record<FunctionId, FunctionBundle>> {
  const entries = Object.fromEntries([
    ...(Object.keys(routes) as RouteId[]).map((id) => [id, handlerEntry(id)] as const),
    ['authorizer', authorizer.entry] as const,
  ]) as Record<FunctionId, string>;
  const built = await Promise.all(
    (Object.keys(entries) as FunctionId[]).map(async (id) => {
      const file = path.join(workDir, `${id}.js`);
      const { metafile } = await build({
        ...buildOptions(file),
        define: functionDefine(id === 'authorizer' ? undefined : routes[id]),
        entryPoints: [path.join(ROOT, entries[id])],
        metafile: true,
      });
      const bundle: FunctionBundle = {
        file,
        bytes: statSync(file).size,
        packages: loadedPackages(metafile, entries[id]),
      };
      return [id, bundle] as const;
    }),
  );
  return Object.fromEntries(built) as Record<FunctionId, FunctionBundle>;
}

/**
 * The floors `wanted` (a kind and the packages of its function), by name (`floorName`). With `complete`,
 * each floor must load every package its function loads (its metafile says), or the bench stops naming
 * what is missing: a package a floor does not use yet (floors.ts), so no ratio leaves it out unseen.
 */
export async function buildFloors(
  workDir: string,
  wanted: Array<{ id?: string; kind: FloorKind; packages: FloorPackages }>,
  { complete }: { complete: boolean } = { complete: true },
): Promise<Map<string, Subject>> {
  const byName = new Map(wanted.map((w) => [floorName(w.kind, w.packages), w]));
  const built = await Promise.all(
    [...byName].map(async ([name, { kind, packages }]) => {
      const file = path.join(workDir, `floor-${name}.js`);
      const sourcefile = `floor-${name}.js`;
      const { metafile } = await build({
        ...buildOptions(file),
        // Resolved from the project, so the floors bundle the same pinned packages as the functions.
        stdin: { contents: floorSource(kind, packages), resolveDir: ROOT, sourcefile, loader: 'js' },
        metafile: true,
      });
      const loaded = loadedPackages(metafile, sourcefile).loaded;
      return [name, { file, bytes: statSync(file).size, loaded }] as const;
    }),
  );
  const floors = new Map(built);
  if (complete) {
    const gaps = wanted.flatMap(({ id, kind, packages }) => {
      const name = floorName(kind, packages);
      const missing = packages.loaded.filter((p) => !floors.get(name)!.loaded.includes(p));
      return missing.length > 0 ? [`${id ?? kind}: floor ${name} does not load ${missing.join(', ')}`] : [];
    });
    if (gaps.length > 0) throw new Error(`${gaps.join('; ')} (test/bench/floors.ts)`);
  }
  return new Map([...floors].map(([name, { file, bytes }]) => [name, { file, bytes }]));
}
