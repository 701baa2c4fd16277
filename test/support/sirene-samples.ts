/** (ext) The sample SIRENE stock (test/fixtures/registries/sirene), cut to one unit for the tests that change it. */
import { readFile } from 'node:fs/promises';
import path from 'node:path';

export const SIRENE_SAMPLES = path.join(__dirname, '..', 'fixtures', 'registries', 'sirene');

/** The sample `file`'s header and the rows of `siren` alone, with `changes` (column → value) applied. */
export async function sireneRows(
  file: 'StockUniteLegale_utf8.csv' | 'StockEtablissement_utf8.csv',
  siren: string,
  changes: Record<string, string> = {},
): Promise<string> {
  const [header, ...lines] = (await readFile(path.join(SIRENE_SAMPLES, file), 'utf8')).split('\n');
  const columns = header!.replace(/^\uFEFF/, '').split(',');
  const rows = lines
    .filter((line) => line.startsWith(`${siren},`))
    .map((line) => {
      const values = line.split(',');
      for (const [column, value] of Object.entries(changes)) values[columns.indexOf(column)] = value;
      return values.join(',');
    });
  return [header, ...rows].join('\n') + '\n';
}
