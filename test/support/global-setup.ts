/**
 * One DynamoDB Local for the whole jest run (workers inherit DYNAMODB_ENDPOINT); each test file
 * then makes its own fresh table (test/support/table.ts). DYNAMODB_ENDPOINT set beforehand reuses
 * a running instance instead. TEST_RUN_ID marks the processes the run's test files start
 * (test/support/processes.ts), so global teardown finds any left behind.
 */
import { randomUUID } from 'node:crypto';
import { freePort, startDynamoDbLocal } from '../../infra/local/dynamodb';
import { RUN_VARIABLE } from './processes';

/** The started DynamoDB Local's process id, for tests of how it was started (unset when reused). */
export const LOCAL_PID_VARIABLE = 'DYNAMODB_LOCAL_PID';

declare global {
  var __stopDynamoDbLocal: (() => Promise<void>) | undefined;
}

export default async function globalSetup(): Promise<void> {
  process.env['AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED'] = 'true';
  process.env[RUN_VARIABLE] ??= randomUUID();
  if (process.env['DYNAMODB_ENDPOINT']) return;
  const local = await startDynamoDbLocal({ port: await freePort() });
  process.env['DYNAMODB_ENDPOINT'] = local.endpoint;
  process.env[LOCAL_PID_VARIABLE] = String(local.pid);
  globalThis.__stopDynamoDbLocal = local.stop;
}
