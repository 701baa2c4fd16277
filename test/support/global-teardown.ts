import { killMarked, RUN_VARIABLE } from './processes';

export default async function globalTeardown(): Promise<void> {
  await globalThis.__stopDynamoDbLocal?.();
  // Each test file's environment already killed what the file started; this catches the rest (a
  // worker that died before its file's teardown).
  const run = process.env[RUN_VARIABLE];
  const killed = run ? await killMarked(`${run}/`) : [];
  if (killed.length > 0) {
    process.stderr.write(
      `global teardown killed ${killed.length} process(es) test files left running:\n` +
        killed.map((p) => `  ${p.pid} ${p.command.slice(0, 200)}`).join('\n') +
        '\n',
    );
  }
}
