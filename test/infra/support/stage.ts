/**
 * The stages the infrastructure tests synthesise (infra/stack.ts), and the cdk-nag packs they run.
 * Functions are not bundled here: the tests read templates only, and bundling is slow.
 *
 * Synthesising a stage is the slow part of these tests (a file's first synthesis most of all), and jest
 * gives every test file modules of its own, so a value kept in a module is kept for one file. The plain
 * dev stage, which every file reads, is therefore also kept on disk for the rest of the jest run: the
 * first file to ask synthesises it, the others read its template back (in any worker). The file is named
 * after the run (TEST_RUN_ID, set by the global setup) and a hash of the sources a synthesis reads, so a
 * template is never read by another run, nor after a source changed (jest's watch mode). Outside a jest
 * run nothing is kept.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks, ServerlessChecks } from 'cdk-nag';
import { CompanyDataStack, type CompanyDataStackProps } from '../../../infra/stack';
import { RUN_VARIABLE } from '../../support/processes';
import { stageTemplate } from '../stage-template';

const ROOT = path.resolve(__dirname, '../../..');
/** What a synthesis reads: the stack, the route table and its handlers, the libraries and their versions. */
const SOURCES = [
  'infra',
  'lib',
  'functions',
  'package-lock.json',
  'test/infra/support',
  'test/infra/stage-template.ts',
];
const KEPT_DIR = path.join(ROOT, 'node_modules', '.cache', 'company-data-infra-tests');

export const PROD_ENV = { env: { account: '123456789012', region: 'eu-west-1' } };
/** A production stage needs an address its alarms go to. */
export const PROD_CONTEXT = { alarmEmail: 'ops@example.com' };

/** A stage's stack, built (not synthesised) with these context values and properties. */
export function synthStack(
  stage = 'dev',
  context: Record<string, unknown> = {},
  props: Partial<CompanyDataStackProps> = {},
): { app: App; stack: CompanyDataStack } {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [], ...context } });
  const stack = new CompanyDataStack(app, `CompanyData-${stage}`, { stage, ...props });
  return { app, stack };
}

/**
 * Both cdk-nag packs, as `npm run synth` runs them (policy validation, on the synthesised app: a nested
 * stack's references to its parent are parameters only then): every finding that is not acknowledged.
 */
export function nagFindings(stack: CompanyDataStack): string[] {
  (stack.node.root as App).synth();
  return [
    new AwsSolutionsChecks(undefined, { verbose: true }),
    new ServerlessChecks(undefined, { verbose: true }),
  ]
    .flatMap((pack) => pack.validateScope(stack).violations)
    .map((v) => `${v.ruleName} ${v.violatingResources[0]?.constructPath}`);
}

let dev: CompanyDataStack | undefined;
let devStageTemplate: Template | undefined;

/** The dev stage's stack, built once per test file (for what reads its constructs: cdk-nag). */
export const devStack = (): CompanyDataStack => (dev ??= synthStack().stack);

/** The dev stage as one template (stage-template.ts), synthesised once per jest run (see above). */
export const devTemplate = (): Template =>
  (devStageTemplate ??= keptForTheRun('dev', () => stageTemplate(devStack())));

function keptForTheRun(name: string, synthesise: () => Template): Template {
  const run = process.env[RUN_VARIABLE];
  if (!run) return synthesise();
  const prefix = `stage-${name}-`;
  const file = path.join(KEPT_DIR, `${prefix}${run}-${sourceHash()}.json`);
  mkdirSync(KEPT_DIR, { recursive: true });
  // Files run side by side in several workers: one synthesises (it holds the lock), the others wait
  // for its template rather than synthesise the same stage on the same cores.
  const lock = `${file}.lock`;
  for (;;) {
    const kept = readKept(file);
    if (kept) return kept;
    if (takeLock(lock)) break;
    pause(100);
  }
  try {
    const template = synthesise();
    // Written beside and renamed: a waiting worker reads a whole template or none.
    const partial = `${file}.${process.pid}`;
    writeFileSync(partial, JSON.stringify(template.toJSON()));
    renameSync(partial, file);
    // Only this run's are kept: another run's belong to a run that is over.
    for (const other of readdirSync(KEPT_DIR))
      if (other.startsWith(prefix) && !other.startsWith(`${prefix}${run}-`))
        rmSync(path.join(KEPT_DIR, other), { force: true });
    return template;
  } finally {
    // Also when the synthesis failed: a waiting worker then tries it itself, and reports the failure.
    rmSync(lock, { force: true });
  }
}

function readKept(file: string): Template | undefined {
  try {
    const json = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
    // As stageTemplate builds it: the flattened stage's references may run both ways between stacks.
    return Template.fromJSON(json, { skipCyclicalDependenciesCheck: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/** Whether this process now holds the lock; a lock whose holder is gone (a killed worker) is removed. */
function takeLock(lock: string): boolean {
  try {
    writeFileSync(lock, String(process.pid), { flag: 'wx' });
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  let holder: number;
  try {
    holder = Number(readFileSync(lock, 'utf8'));
  } catch {
    return false; // Released meanwhile: the next round reads the template or takes the lock.
  }
  if (holder > 0 && !isRunning(holder)) rmSync(lock, { force: true });
  return false;
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Blocks this worker (a test file is collected synchronously, so no timer could run meanwhile). */
const pause = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

function sourceHash(): string {
  const hash = createHash('sha256');
  const files = SOURCES.flatMap((source) =>
    statSync(path.join(ROOT, source)).isDirectory()
      ? readdirSync(path.join(ROOT, source), { recursive: true, encoding: 'utf8' }).map((name) =>
          path.join(source, name),
        )
      : [source],
  ).filter((file) => statSync(path.join(ROOT, file)).isFile());
  for (const file of files.sort()) hash.update(`${file}\n`).update(readFileSync(path.join(ROOT, file)));
  return hash.digest('hex').slice(0, 16);
}
