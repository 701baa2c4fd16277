/**
 * Which stage a CLI talks to. By default the local stage: table company-data-local on
 * $DYNAMODB_ENDPOINT, else the DynamoDB Local that `npm start` runs on $DYNAMODB_LOCAL_PORT (8000).
 * With `--table NAME`, a deployed stage's table through the AWS credentials and region of the
 * environment (unless DYNAMODB_ENDPOINT says otherwise).
 */
import { LOCAL_TABLE_NAME } from '../../lib/storage/table';

process.env['AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED'] ??= 'true';

/** Points the storage client at the stage (through the environment) and says in words where that is. */
export function useStage(table: string | undefined): string {
  const name = table ?? process.env['TABLE_NAME'] ?? LOCAL_TABLE_NAME;
  process.env['TABLE_NAME'] = name;
  const endpoint =
    process.env['DYNAMODB_ENDPOINT'] ??
    (name === LOCAL_TABLE_NAME
      ? `http://127.0.0.1:${process.env['DYNAMODB_LOCAL_PORT'] ?? 8000}`
      : undefined);
  if (!endpoint) return `table ${name} in AWS region ${process.env['AWS_REGION'] ?? '(AWS_REGION unset)'}`;
  process.env['DYNAMODB_ENDPOINT'] = endpoint;
  return name === LOCAL_TABLE_NAME
    ? `table ${name} on ${endpoint} (the local stage: is \`npm start\` running?)`
    : `table ${name} on ${endpoint}`;
}
