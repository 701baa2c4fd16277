/**
 * What the operator CLIs share: whether the stage is a deployed one, and who is running the command, for
 * the audit records (lib/audit/audit.ts): an identity the operator's credentials prove, never a name
 * the operator types.
 */
import os from 'node:os';
import { GetCallerIdentityCommand, STSClient } from '@aws-sdk/client-sts';
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

/**
 * Who is running the command. In AWS: the principal the credentials resolve to (STS GetCallerIdentity:
 * `arn:aws:sts::123456789012:assumed-role/Operator/alice`), the same identity CloudTrail records for the
 * command's AWS calls; the command fails when it cannot be found. Elsewhere (the local stage, DynamoDB
 * Local): the OS user, marked local (`local:alice`), since no credentials prove anything there.
 */
export async function operatorIdentity(
  inAws: boolean,
  sts: () => STSClient = () => new STSClient({}),
): Promise<string> {
  if (!inAws) return `local:${localUser()}`;
  const { Arn } = await sts().send(new GetCallerIdentityCommand({}));
  if (!Arn) throw new Error('STS GetCallerIdentity named no principal: no audit record can say who acted');
  return Arn;
}

/** The OS user running the command; its uid where the system has no name for it (a container's user). */
function localUser(): string {
  try {
    return os.userInfo().username;
  } catch {
    return `uid-${process.getuid?.() ?? 'unknown'}`;
  }
}
