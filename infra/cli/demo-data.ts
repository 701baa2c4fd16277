/**
 * `npm run demo-data -- --companies N [--seed S] > companies.jsonl`: the deterministic demo companies as
 * JSON Lines (contract §11.1), one company per line, ready for `npm run import`.
 *
 * Streams: companies are generated as the output takes them (waiting for 'drain' when the pipe is full),
 * so 100,000 companies or more never sit in memory. A summary goes to standard error.
 */
import { parseArgs } from 'node:util';
import { DEFAULT_DEMO_COMPANIES, demoRecords } from '../../test/fixtures/demo-data/companies';
import type { DemoRecord } from '../../test/fixtures/demo-data/records';
import {
  DEMO_SNAPSHOT_DATE,
  DEMO_SNAPSHOTS,
  type DemoSnapshot,
} from '../../test/fixtures/demo-data/snapshots';

const USAGE = `usage: npm run demo-data -- [--companies N] [--seed S] [--snapshot older|current] > companies.jsonl
  --companies N   how many companies (default ${DEFAULT_DEMO_COMPANIES}); a smaller N gives a prefix of a larger one
  --seed S        integer seed (default: the demo seed, the data \`npm start\` loads)
  --snapshot      current (default), or older: the same companies as of ${DEMO_SNAPSHOT_DATE}, without the
                  periods received since and with people who left since (import it first, with
                  --as-of ${DEMO_SNAPSHOT_DATE}, then the current data: every type of update appears)`;

/** Lines are written in chunks of about this many characters: one write per company would be slow. */
const CHUNK = 1 << 20;

async function main(): Promise<number> {
  let values: { companies?: string; seed?: string; snapshot?: string; help?: boolean };
  try {
    ({ values } = parseArgs({
      options: {
        companies: { type: 'string' },
        seed: { type: 'string' },
        snapshot: { type: 'string' },
        help: { type: 'boolean' },
      },
    }));
  } catch (error) {
    return fail(`${error instanceof Error ? error.message : String(error)}\n${USAGE}`);
  }
  if (values.help) return fail(USAGE, 0);
  const companies = integerOption(values.companies);
  const seed = integerOption(values.seed);
  if (companies === null || seed === null) return fail(USAGE);
  const snapshot = values.snapshot ?? 'current';
  if (!(DEMO_SNAPSHOTS as readonly string[]).includes(snapshot)) return fail(USAGE);

  let records: Generator<DemoRecord>;
  try {
    records = demoRecords({
      ...(companies === undefined ? {} : { companies }),
      ...(seed === undefined ? {} : { seed }),
      snapshot: snapshot as DemoSnapshot,
    });
  } catch (error) {
    if (error instanceof RangeError) return fail(`${error.message}\n${USAGE}`);
    throw error;
  }

  const started = performance.now();
  const out = process.stdout;
  // A reader that stops early (`| head`) closes the pipe: stop writing, that is not a failure.
  let closed = false;
  out.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') {
      console.error(`${error.name}: ${error.message}`);
      process.exit(1);
    }
    closed = true;
  });

  let count = 0;
  let chunk = '';
  for (const record of records) {
    chunk += `${JSON.stringify(record)}\n`;
    count++;
    if (chunk.length >= CHUNK) {
      if (!out.write(chunk)) await drained(out);
      chunk = '';
      if (closed) return 0;
    }
  }
  await new Promise<void>((resolve) => out.write(chunk, () => resolve()));
  if (closed) return 0;

  const seconds = (performance.now() - started) / 1000;
  console.error(`demo data: ${count} companies in ${seconds.toFixed(1)} s`);
  return 0;
}

/** Resolves when the stream takes writes again, or is gone. */
function drained(stream: NodeJS.WritableStream): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      stream.off('drain', done);
      stream.off('close', done);
      resolve();
    };
    stream.on('drain', done);
    stream.on('close', done);
  });
}

/** undefined when absent, null when not an integer. */
function integerOption(value: string | undefined): number | undefined | null {
  if (value === undefined) return undefined;
  return /^-?\d+$/.test(value.trim()) ? Number(value) : null;
}

function fail(message: string, code = 2): number {
  console.error(message);
  return code;
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    console.error(error instanceof Error ? `${error.name}: ${error.message}` : error);
    process.exitCode = 1;
  },
);
