/**
 * The jest test environment of every test file: Node's, plus the guarantee of test/support/processes.ts
 * — whatever processes the file started are killed when it ends (after its afterAll hooks, also when a
 * test failed or timed out), and it names on stderr what it had to kill, so a leak is seen, not only
 * cleaned up.
 */
import { randomUUID } from 'node:crypto';
import type { EnvironmentContext, JestEnvironmentConfig } from '@jest/environment';
import NodeEnvironment from 'jest-environment-node';
import { killMarked, OWNER_VARIABLE, RUN_VARIABLE } from './processes';

export default class TestEnvironment extends NodeEnvironment {
  private readonly owner: string;
  private readonly testPath: string;

  constructor(config: JestEnvironmentConfig, context: EnvironmentContext) {
    super(config, context);
    this.testPath = context.testPath;
    this.owner = `${process.env[RUN_VARIABLE] ?? 'run'}/${randomUUID()}`;
  }

  override async setup(): Promise<void> {
    await super.setup();
    // Both: spawn() without `env` passes this (the worker's) environment, `{ ...process.env }` in a
    // test copies the sandbox's.
    process.env[OWNER_VARIABLE] = this.owner;
    this.global.process.env[OWNER_VARIABLE] = this.owner;
  }

  override async teardown(): Promise<void> {
    delete process.env[OWNER_VARIABLE];
    const killed = await killMarked(this.owner);
    if (killed.length > 0) {
      process.stderr.write(
        `${this.testPath}: killed ${killed.length} process(es) it left running:\n` +
          killed.map((p) => `  ${p.pid} ${p.command.slice(0, 200)}`).join('\n') +
          '\n',
      );
    }
    await super.teardown();
  }
}
