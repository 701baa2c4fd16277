/**
 * What the operator CLIs share: whether the stage is a deployed one, and who is running the command
 * (for the audit records: `--actor`, else $AUDIT_ACTOR, else the OS user at the host).
 */
import os from 'node:os';
import { LOCAL_TABLE_NAME } from '../../lib/storage/table';

/** A deployed stage's table (any other name than the local stage's): its tokens must expire. */
export const isDeployedTable = (table: string | undefined): boolean =>
  (table ?? process.env['TABLE_NAME'] ?? LOCAL_TABLE_NAME) !== LOCAL_TABLE_NAME;

/**
 * A stage in AWS itself (a deployed table, reached without a DynamoDB endpoint of its own): its
 * accounts' API keys live in API Gateway. Read before `useStage`, which sets the endpoint locally.
 */
export const isInAws = (table: string | undefined): boolean =>
  isDeployedTable(table) && !process.env['DYNAMODB_ENDPOINT'];

export function actorOf(given: string | undefined): string {
  if (given) return given;
  if (process.env['AUDIT_ACTOR']) return process.env['AUDIT_ACTOR'];
  return `${os.userInfo().username}@${os.hostname()}`;
}
