/**
 * (ext) A registry's extracts applied to a stage, in order (contract §11.5.2): KBO's updates apply in
 * `ExtractNumber` order, so the stage keeps the last extract applied (full or update: a full extract
 * holds every update up to its number) and the one running. One item per registry
 * (`keys.registryProgress`), read and written by the import command only.
 *
 * - An update is applied only when its number is above the last one applied; a full extract is refused
 *   when it is older than the last one applied (it would take the stage back). Either refused writes
 *   nothing: `ExtractRefusedError`, said before anything is read.
 * - An extract that was cut off is still the running one: the same extract again resumes it (the
 *   import is idempotent), another one is refused until it has.
 * - Only when the whole extract is imported does it become the last applied: the same update again is
 *   then refused, which writes nothing.
 * - An extract whose files turn out not to be as published is given up (`abandonExtract`): its
 *   converter reads every file through before it hands on a unit, so it wrote nothing.
 */
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { conditionHeld, dynamodb, send, tableName } from '../storage/client';
import * as keys from '../storage/keys';

/** Which extract an import is: its kind and number as its own files say (KBO `meta.csv`). */
export interface Extract {
  source: string;
  kind: 'full' | 'update';
  number: number;
}

/** An extract the stage cannot take now (out of order): the command refuses it (exit 2). */
export class ExtractRefusedError extends Error {
  override readonly name = 'ExtractRefusedError';
}

interface Progress {
  /** The last extract applied whole. */
  last?: number;
  /** The extract being applied (cut off when no import runs). */
  running?: number;
}

async function progressOf(source: string): Promise<Progress> {
  const { Item: item } = await send(() =>
    dynamodb().send(
      new GetCommand({ TableName: tableName(), Key: keys.registryProgress(source), ConsistentRead: true }),
    ),
  );
  return {
    ...(typeof item?.['last'] === 'number' ? { last: item['last'] } : {}),
    ...(typeof item?.['running'] === 'number' ? { running: item['running'] } : {}),
  };
}

/**
 * Checks that the stage can take `extract` now and marks it running; answers what the operator should
 * know (an extract skipped, no full extract yet). Throws ExtractRefusedError when it cannot.
 */
export async function beginExtract(extract: Extract): Promise<string[]> {
  const { source, kind, number } = extract;
  const { last, running } = await progressOf(source);
  const named = `${source.toUpperCase()} ${kind} extract ${number}`;
  if (running !== undefined && running !== number)
    throw new ExtractRefusedError(
      `${named} refused: extract ${running} was cut off before it ended; import it again first ` +
        `(nothing was written)`,
    );
  const notices: string[] = [];
  if (running !== number && last !== undefined) {
    if (kind === 'update' && number <= last)
      throw new ExtractRefusedError(
        `${named} refused: the stage has extract ${last} applied already, and updates apply in ` +
          `ExtractNumber order (nothing was written)`,
      );
    if (kind === 'full' && number < last)
      throw new ExtractRefusedError(
        `${named} refused: it is older than extract ${last}, already applied (nothing was written)`,
      );
    if (kind === 'update' && number > last + 1)
      notices.push(
        `note: extracts ${last + 1}${number - 1 > last + 1 ? `–${number - 1}` : ''} were not applied: ` +
          `their changes are missing until they are, or until the next full extract`,
      );
  }
  if (last === undefined && running === undefined && kind === 'update')
    notices.push(
      `note: no ${source.toUpperCase()} extract was imported into this stage before: the update changes ` +
        `only the enterprises it inserts whole`,
    );
  // Taken only as read: another import that began an extract in between makes this one ask again.
  const taken = await conditionHeld(() =>
    dynamodb().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.registryProgress(source),
        UpdateExpression: 'SET entity = :entity, running = :number',
        ConditionExpression:
          '(attribute_not_exists(running) OR running = :number) AND ' +
          (last === undefined ? 'attribute_not_exists(#last)' : '#last = :last'),
        ExpressionAttributeNames: { '#last': 'last' },
        ExpressionAttributeValues: {
          ':entity': 'RegistryProgress',
          ':number': number,
          ...(last === undefined ? {} : { ':last': last }),
        },
      }),
    ),
  );
  return taken ? notices : beginExtract(extract);
}

/**
 * The extract imported whole: it is the last applied, none runs. `again`: a step that may be retried
 * after it ended the extract (the import engine's completion) finds it ended, not refused.
 */
export async function endExtract(
  { source, number }: Extract,
  { again = false }: { again?: boolean } = {},
): Promise<void> {
  const ended = await conditionHeld(() =>
    dynamodb().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.registryProgress(source),
        UpdateExpression: 'SET #last = :number REMOVE running',
        ConditionExpression: 'running = :number',
        ExpressionAttributeNames: { '#last': 'last' },
        ExpressionAttributeValues: { ':number': number },
      }),
    ),
  );
  if (ended) return;
  const { last, running } = await progressOf(source);
  if (again && last === number && running === undefined) return;
  throw new Error(`${source.toUpperCase()} extract ${number} is not the one running: it cannot end`);
}

/** An extract that wrote nothing (its files are not as published): no longer the running one. */
export async function abandonExtract({ source, number }: Extract): Promise<void> {
  await conditionHeld(() =>
    dynamodb().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.registryProgress(source),
        UpdateExpression: 'REMOVE running',
        ConditionExpression: 'running = :number',
        ExpressionAttributeValues: { ':number': number },
      }),
    ),
  );
}
