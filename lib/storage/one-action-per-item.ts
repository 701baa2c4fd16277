/**
 * TransactWriteItems and BatchWriteItem each refuse a request that names one item twice (DynamoDB's
 * ValidationException, "multiple operations on one item"). Whoever gathers actions of several
 * companies into one request merges them per item first, or spreads them over rounds with
 * `roundsByItem`; `assertOneActionPerItem` checks every request before it is sent, so a gathering
 * that missed a case fails with the item's key and the name of what gathered it, not DynamoDB's words.
 */
type Key = Record<string, unknown>;

/** One string per table key (pk, sk), unambiguous whatever they hold: the pk's length first. */
export function uniqueKey(key: Key): string {
  const pk = String(key['pk']);
  return `${pk.length}:${pk}${String(key['sk'])}`;
}

/** Two actions on one item were about to go in one request: a defect of the code that gathered them. */
export class TwoActionsOnOneItemError extends Error {
  override readonly name = 'TwoActionsOnOneItemError';
  /** What gathered the actions (say a derivation); named by the first caller that knows it. */
  gatheredBy: string | undefined;

  constructor(
    readonly request: 'TransactWriteItems' | 'BatchWriteItem',
    readonly key: Key,
  ) {
    super();
    this.message = this.describe();
  }

  /** Names what gathered the actions, unless something closer to the write named itself first. */
  nameGatherer(what: string): void {
    this.gatheredBy ??= what;
    this.message = this.describe();
  }

  private describe(): string {
    const { pk, sk } = this.key;
    return (
      `${this.gatheredBy ?? 'a write'} put two actions on one item in one ${this.request} request ` +
      `(pk ${String(pk)}, sk ${String(sk)})`
    );
  }
}

/** Throws TwoActionsOnOneItemError when two of these keys name one item. */
export function assertOneActionPerItem(request: TwoActionsOnOneItemError['request'], keys: Key[]): void {
  if (keys.length < 2) return;
  const seen = new Set<string>();
  for (const key of keys) {
    const id = uniqueKey(key);
    if (seen.has(id)) throw new TwoActionsOnOneItemError(request, { pk: key['pk'], sk: key['sk'] });
    seen.add(id);
  }
}

/** The item a TransactWriteItems action writes or checks. */
export function actionKey(action: {
  Put?: { Item?: Key };
  Update?: { Key?: Key };
  Delete?: { Key?: Key };
  ConditionCheck?: { Key?: Key };
}): Key {
  const key = action.Put?.Item ?? action.Update?.Key ?? action.Delete?.Key ?? action.ConditionCheck?.Key;
  return { pk: key?.['pk'], sk: key?.['sk'] };
}

/**
 * Spreads actions over rounds so that no round names an item twice: round r takes the r-th action of
 * every item, in the order given. Rounds are meant to be sent one after the other.
 */
export function roundsByItem<T>(actions: T[], keyOf: (action: T) => Key): T[][] {
  const rounds: T[][] = [];
  const counts = new Map<string, number>();
  for (const action of actions) {
    const id = uniqueKey(keyOf(action));
    const round = counts.get(id) ?? 0;
    counts.set(id, round + 1);
    (rounds[round] ??= []).push(action);
  }
  return rounds;
}

/**
 * Runs `work`, naming `what` in a TwoActionsOnOneItemError it throws (unless something closer to the
 * write named itself first).
 */
export async function gatheredBy<T>(what: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof TwoActionsOnOneItemError) error.nameGatherer(what);
    throw error;
  }
}
