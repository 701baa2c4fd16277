/**
 * (ext) The import command loads only the converter of the format asked for: a JSON Lines import reads
 * none of the registries' code (their converters, the CSV parser, the ZIP reader), a registry import
 * only its own. Seen through Node's module loading log (NODE_DEBUG=module) of the real command.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { companyRecord } from '../support/records';
import { useFreshTable } from '../support/table';

const table = useFreshTable();
jest.setTimeout(180_000);

const ROOT = path.join(__dirname, '..', '..');
const FIXTURES = path.join(ROOT, 'test', 'fixtures', 'registries');

/** The command's exit code and the modules it loaded (their requests as Node logs them). */
function loadedBy(args: string[], stdin = ''): Promise<{ code: number | null; modules: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', path.join(ROOT, 'infra/cli/import.ts'), ...args, '--table', table.name],
      { cwd: ROOT, env: { ...process.env, NODE_DEBUG: 'module' } },
    );
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.stdout.resume();
    child.on('error', reject);
    child.on('close', (code) =>
      resolve({
        code,
        modules: stderr
          .split('\n')
          .filter((line) => line.includes('Module._load'))
          .join('\n'),
      }),
    );
    child.stdin.end(stdin);
  });
}

const REGISTRY_CODE = {
  kbo: /lib\/import\/sources\/kbo/,
  sirene: /lib\/import\/sources\/sirene/,
  parsers: /node_modules\/(csv-parse|yauzl)\/|REQUEST (csv-parse|yauzl) /,
};

describe('the import command loads only what its format needs', () => {
  it('a JSON Lines import loads no registry converter, no CSV parser, no ZIP reader', async () => {
    const run = await loadedBy(['-'], JSON.stringify(companyRecord({ companyNumber: '0417497106' })));
    expect(run.code).toBe(0);
    expect(run.modules).toMatch(/lib\/import\/import/);
    for (const pattern of Object.values(REGISTRY_CODE)) expect(run.modules).not.toMatch(pattern);
  });

  it('a SIRENE import loads the SIRENE converter and the parsers, not the KBO one', async () => {
    const run = await loadedBy([
      '--format',
      'sirene',
      path.join(FIXTURES, 'sirene', 'StockUniteLegale_utf8.csv'),
    ]);
    expect(run.code).toBe(1);
    expect(run.modules).toMatch(REGISTRY_CODE.sirene);
    expect(run.modules).toMatch(REGISTRY_CODE.parsers);
    expect(run.modules).not.toMatch(REGISTRY_CODE.kbo);
  });
});
