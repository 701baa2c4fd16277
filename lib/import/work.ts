/**
 * Where the import engine's runs keep their work files in the import bucket (lib/import/engine.ts, the
 * lookalike fan-out's steps): apart from the engine, so a lookalike worker's bundle does not carry the
 * whole import.
 */

/** A run's parts, partition reports and lookalike snapshots, removed by its last step. */
export const WORK_PREFIX = 'work/';

export const workPrefix = (run: string) => `${WORK_PREFIX}${run}/`;

/** Where a run's lookalike fan-out keeps its snapshots (the import's, or the full job's). */
export const lookalikeWork = (run: string) => `${workPrefix(run)}lookalikes/`;
