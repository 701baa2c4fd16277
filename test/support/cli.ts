/** Runs an operator CLI (`infra/cli/…`) against a table, as `npm run` would, and collects what it printed. */
import { spawn } from 'node:child_process';
import path from 'node:path';

const ROOT = path.join(__dirname, '..', '..');

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

export function runCli(script: string, args: string[], table: string, stdin = ''): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', path.join(ROOT, script), ...args, '--table', table],
      {
        cwd: ROOT,
        env: { ...process.env, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
      },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(stdin);
  });
}
