/**
 * Turns in file order: the import reads a file's batches concurrently, but some steps (judging lines,
 * claiming contacts) must see the batches one after the other as the file has them. A batch takes its
 * turn when it is flushed (so in file order) and waits for the turn before it to end.
 */

/** A batch's turn: `ready` when the turn before it ended; `end` ends it (and settles `done`). */
export interface Turn {
  ready: Promise<void>;
  done: Promise<void>;
  end: () => void;
}

export function nextTurn(previous: Promise<void>): Turn {
  let end!: () => void;
  const done = new Promise<void>((resolve) => (end = resolve));
  return { ready: previous, done, end };
}
