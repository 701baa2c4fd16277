/**
 * `npm run import` as a user runs it, before anything is imported: a usage error is a usage error (the
 * command's usage, exit 2, never "import stopped"), and a registry's CSV handed to the JSON Lines
 * import gets one message naming the `--format` it needs (contract §11.2, §11.3). No table is touched.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';

const ROOT = path.join(__dirname, '..', '..');
const dir = mkdtempSync(path.join(os.tmpdir(), 'import-cli-usage-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
jest.setTimeout(60_000);

function importCli(
  args: string[],
  stdin?: string,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', path.join(ROOT, 'infra/cli/import.ts'), ...args],
      {
        cwd: ROOT,
        // Nowhere to write: an import that got as far as the table would fail, not pass.
        env: { ...process.env, NODE_OPTIONS: '', DYNAMODB_ENDPOINT: 'http://127.0.0.1:9' },
      },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(stdin);
  });
}

const file = (name: string, content: string | Buffer) => {
  const at = path.join(dir, name);
  writeFileSync(at, content);
  return at;
};

const KBO_HEADER =
  '\uFEFF"EnterpriseNumber","Status","JuridicalSituation","TypeOfEnterprise","JuridicalForm","JuridicalFormCAC","StartDate"\r\n' +
  '"0712.345.630","AC","000","2","610",,14-03-2019\r\n';
const DENOMINATION =
  '"EntityNumber","Language","TypeOfDenomination","Denomination"\n"0712.345.630","2","001","X"\n';
const SIRENE_UNITS =
  'siren,statutDiffusionUniteLegale,unitePurgeeUniteLegale,dateCreationUniteLegale\n912345675,O,,2022-03-14\n';

describe('a usage error', () => {
  test.each([
    [['--formatt', 'kbo', 'x'], "Unknown option '--formatt'"],
    [['--format', 'cbso2', 'x'], '--format takes kbo, sirene, cbso or inpi-ratios (got cbso2)'],
    [['--format', 'kbo'], 'give one KBO ZIP or folder'],
    [['--format', 'sirene', 'a.csv', 'b.csv'], 'give one SIRENE units file (StockUniteLegale)'],
    [
      ['--format', 'kbo', 'x.zip', '--establishments', 'e.csv'],
      '--establishments and --active-only go with --format sirene',
    ],
    [['x.jsonl', '--active-only'], '--establishments and --active-only go with --format sirene'],
    [['x.jsonl', '--as-of', '2026-02-30'], '--as-of takes a date, YYYY-MM-DD (got 2026-02-30)'],
    [[], 'give one FILE.jsonl (or - for standard input)'],
  ])('%j: says what is wrong, then the usage, exit 2', async (args, problem) => {
    const { code, stdout, stderr } = await importCli(args);

    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr.split('\n')[0]).toContain(problem);
    expect(stderr).toContain('usage: npm run import -- FILE.jsonl[.gz]|-');
    expect(stderr).toContain(
      'npm run import -- --format sirene UNITS [--establishments FILE] [--active-only]',
    );
    expect(stderr).not.toContain('import stopped');
  });

  test('a registry path that cannot be read says so, and only that', async () => {
    const { code, stderr } = await importCli(['--format', 'sirene', path.join(dir, 'missing.csv')]);

    expect(code).toBe(2);
    expect(stderr.trim()).toBe(`cannot read ${path.join(dir, 'missing.csv')}: no such file`);
  });
});

describe("a registry's CSV handed to the JSON Lines import", () => {
  test.each([
    ['enterprise.csv (BOM, CRLF)', () => file('enterprise.csv', KBO_HEADER), 'KBO', 'kbo'],
    ['denomination.csv', () => file('denomination.csv', DENOMINATION), 'KBO', 'kbo'],
    [
      'a gzip-compressed StockUniteLegale',
      () => file('units.csv.gz', gzipSync(SIRENE_UNITS)),
      'SIRENE',
      'sirene',
    ],
  ])('%s: one message naming the right --format, exit 2', async (_name, make, registry, format) => {
    const at = make();

    const { code, stdout, stderr } = await importCli([at]);

    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toBe(
      `${at} is a ${registry} CSV file, not JSON Lines: import it with --format ${format}\n`,
    );
  });

  test('on standard input too', async () => {
    const { code, stderr } = await importCli(['-'], SIRENE_UNITS);

    expect(code).toBe(2);
    expect(stderr).toBe(
      'standard input is a SIRENE CSV file, not JSON Lines: import it with --format sirene\n',
    );
  });

  test('a JSON Lines file whose first line is no header is imported as before (here: no table to write to)', async () => {
    const at = file('one.jsonl', '{"country": "BE", "companyNumber": "0403170701", "name": "Acme NV"}\n');

    const { code, stderr } = await importCli([at]);

    // It got past the check to the import, which finds no DynamoDB at that address.
    expect(code).toBe(2);
    expect(stderr).toContain(`importing ${at}`);
    expect(stderr).not.toContain('--format');
  });
});
