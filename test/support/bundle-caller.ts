/**
 * Calls a function's bundle as Lambda would (test/infra/bundles.test.ts): a fresh, bare `node` (nothing
 * of jest or ts-jest loaded) requires the bundle and calls its handler once, in the environment the
 * stack gives the function, and reports what it answered or threw, and at which stage.
 */
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { functionEnvironment } from '../../infra/function';

/** Printed before the runner's one result line, so a handler's own log lines cannot be taken for it. */
const RESULT = 'BUNDLE_RESULT ';
/**
 * A bare node: requires the bundle, calls its handler once with the event file's event (`null`: no
 * event, as a schedule calls a worker), prints what it answered or threw.
 */
const RUNNER = `'use strict';
const { readFileSync } = require('node:fs');
const [bundle, eventFile] = process.argv.slice(2);
const event = JSON.parse(readFileSync(eventFile, 'utf8'));
const context = { awsRequestId: 'bundles-test', functionName: 'bundles-test', getRemainingTimeInMillis: () => 60000 };
const report = (result) => process.stdout.write('\\n${RESULT}' + JSON.stringify(result) + '\\n', () => process.exit(0));
const failure = (stage) => (error) => report({ stage, error: { name: error && error.name, message: String((error && error.message) || error) } });
let handler;
try {
  ({ handler } = require(bundle));
} catch (error) {
  failure('load')(error);
}
if (handler) Promise.resolve().then(() => handler(event === null ? undefined : event, context)).then((answer) => report({ answer }), failure('call'));
`;

export type Outcome =
  { answer: unknown } | { stage: 'load' | 'call'; error: { name: string; message: string } };

/** A caller of bundles whose scratch files (the runner, the events) go to `dir`. */
export function bundleCaller(dir: string) {
  const runnerFile = path.join(dir, 'runner.cjs');
  writeFileSync(runnerFile, RUNNER);
  let calls = 0;
  /** Loads `bundle` in a fresh node and calls its handler with `event` (null: none, as a schedule calls a worker). */
  return async function callBundle(
    bundle: string,
    event: unknown,
    { requestPath = false, env = {} }: { requestPath?: boolean; env?: Record<string, string> } = {},
  ): Promise<Outcome> {
    const eventFile = path.join(dir, `event-${++calls}.json`);
    writeFileSync(eventFile, JSON.stringify(event ?? null));
    const quiet = { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' }; // as the bench runs them
    const childEnv: NodeJS.ProcessEnv = {
      ...process.env,
      ...functionEnvironment({ requestPath }),
      ...quiet,
      ...env,
    };
    // A bare node, as on Lambda: no loader or flags of jest's.
    delete childEnv['NODE_OPTIONS'];
    const { stdout } = await promisify(execFile)(process.execPath, [runnerFile, bundle, eventFile], {
      env: childEnv,
      timeout: 120_000,
      maxBuffer: 16 * 1024 * 1024,
    });
    const line = stdout.split('\n').find((l) => l.startsWith(RESULT));
    if (!line) throw new Error(`${path.basename(bundle)} printed no result: ${stdout.slice(-2000)}`);
    return JSON.parse(line.slice(RESULT.length)) as Outcome;
  };
}

/** What a call answered; throws what it threw, naming the function and the stage. */
export function answerOf(id: string, outcome: Outcome): unknown {
  if (!('error' in outcome)) return outcome.answer;
  throw new Error(`${id}: ${outcome.stage} failed: ${outcome.error.name}: ${outcome.error.message}`);
}
