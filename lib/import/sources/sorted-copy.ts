/**
 * A registry CSV file that is not in the order a join needs, copied in that order through sorted runs
 * on local disk (contract §11.5.10), never held whole. The copy keeps each row's physical line in the
 * original file in an extra last column (`ORIGINAL_LINE`), so that messages still name the file's own
 * lines. Rows with equal keys keep their order.
 */
import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { readCsv } from './csv';
import { RegistryFileError, streamOf, type RegistryFiles } from './files';
import { SortedRuns, type SortedRunsOptions } from './sorted-runs';

/** The extra column of a sorted copy: the row's line in the original file. */
export const ORIGINAL_LINE = '__line';

/** Thrown by a join that finds a file out of the order it relies on; the converter may sort it and start again. */
export class OutOfOrderError extends RegistryFileError {
  constructor(
    readonly file: string,
    readonly line: number,
    message: string,
  ) {
    super(message);
  }
}

/** RFC 4180: every field quoted, inner quotes doubled. */
const field = (value: string) => `"${value.replace(/"/g, '""')}"`;

/** Copies `name` into `dir` sorted by `keyOf` of its `keyColumn`; the copy's path. */
export async function sortedCopy(
  files: RegistryFiles,
  name: string,
  keyColumn: string,
  keyOf: (value: string) => string,
  dir: string,
  options: SortedRunsOptions = {},
): Promise<string> {
  const csv = await readCsv(await files.open(name), name, [keyColumn]);
  const key = csv.header.indexOf(keyColumn);
  const runs = new SortedRuns<string[]>({ ...options, dir });
  for await (const batch of csv.rows)
    for (const row of batch) {
      // Keys pad to one width (a malformed one is longer or shorter): the line breaks ties in file order.
      const sortKey = `${keyOf(row.values[key] ?? '').padEnd(14, ' ')}${String(row.line).padStart(12, '0')}`;
      await runs.add(sortKey, [...row.values, String(row.line)]);
    }
  const path = join(dir, `sorted-${name}`);
  const out = createWriteStream(path);
  let chunk = `${[...csv.header, ORIGINAL_LINE].map(field).join(',')}\n`;
  for await (const [, values] of runs.sorted()) {
    chunk += `${values.map(field).join(',')}\n`;
    if (chunk.length > 1 << 16) {
      if (!out.write(chunk)) await once(out, 'drain');
      chunk = '';
    }
  }
  out.end(chunk);
  await once(out, 'close');
  return path;
}

/** The same files, some of them served from their sorted copies. */
export function withCopies(files: RegistryFiles, copies: ReadonlyMap<string, string>): RegistryFiles {
  return {
    origin: files.origin,
    names: files.names,
    find: (name) => files.find(name),
    open: (name, options): Promise<Readable> => {
      const copy = copies.get(files.find(name) ?? name);
      return copy ? streamOf(copy, options) : files.open(name, options);
    },
    close: () => files.close(),
  };
}
