/**
 * The registries' files as published, through the command (contract §11.3): the sample KBO full
 * extract and SIRENE stock pair imported into DynamoDB Local with `npm run import -- --format …`, then
 * read back through the API's use cases; a JSON Lines import before a registry's keeps its sections.
 */
import path from 'node:path';
import { getCompanyDetails } from '../../lib/companies/details';
import { getCompanyFinancials } from '../../lib/companies/financials';
import { companyRecord, period } from '../support/records';
import { runCli } from '../support/cli';
import { useFreshTable } from '../support/table';

const table = useFreshTable();
jest.setTimeout(180_000);

const FIXTURES = path.join(__dirname, '..', 'fixtures', 'registries');
const importCli = (...args: string[]) => runCli('infra/cli/import.ts', args, table.name);
const details = (country: string, companyNumber: string) =>
  getCompanyDetails({ countryCode: country, companyNumber }, '2026-11-29');

describe('npm run import -- --format kbo', () => {
  it('keeps what JSON Lines gave and sets what the registry owns, as of the extract', async () => {
    // What another source knows of Acme Bouw: its financials stay through the registry's import.
    const earlier = companyRecord({
      companyNumber: '0403170701',
      name: 'Old Name NV',
      financials: [period(2024)],
    });
    const seeded = await runCli(
      'infra/cli/import.ts',
      ['-', '--as-of', '2026-01-01'],
      table.name,
      JSON.stringify(earlier),
    );
    expect(seeded.code).toBe(0);

    const run = await importCli('--format', 'kbo', path.join(FIXTURES, 'kbo-full'));
    expect(run.stderr).toMatch(/as of \d{4}-\d{2}-\d{2}/);
    expect(run.stdout).toMatch(
      /^read \d+, imported \d+ \(new \d+, changed 1, unchanged 0\), rejected \d+, /m,
    );
    expect([0, 1]).toContain(run.code);

    const { data } = await details('BE', '0403.170.701');
    expect(data).toMatchObject({
      vatNumber: 'BE0403170701',
      establishedSince: '1998-03-01T00:00:00.000Z',
      companyTypeCode: '014',
      name: 'Acme Bouw, "De Toekomst"',
      address: {
        country: 'BE',
        street: 'Voorbeeldstraat',
        number: '12',
        box: 'A',
        postalCode: '9000',
        place: 'Gent',
      },
      website: ['https://www.acme-bouw.be'],
      activities: ['41201', '43999', '43320'],
      otherNames: ['Acme Construction', 'ACB', 'Acme Renovatie'],
    });
    const financials = await getCompanyFinancials(
      { countryCode: 'BE', companyNumber: '0403170701' },
      { limit: 10, offset: 0 },
    );
    expect(JSON.parse(financials.text).data).toHaveLength(1);

    // The same extract again writes nothing.
    const again = await importCli('--format', 'kbo', path.join(FIXTURES, 'kbo-full'));
    expect(again.stdout).toMatch(/\(new 0, changed 0, unchanged \d+\)/);
  });

  it('refuses a folder that is no KBO extract, with the reason, before anything is written', async () => {
    const run = await importCli('--format', 'kbo', path.join(FIXTURES, 'sirene'));
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/^cannot import: .*meta\.csv/m);
    expect(run.stderr).not.toMatch(/import stopped/);
  });
});

describe('npm run import -- --format sirene', () => {
  it('imports the units with their head offices', async () => {
    const run = await importCli(
      '--format',
      'sirene',
      path.join(FIXTURES, 'sirene', 'StockUniteLegale_utf8.csv'),
      '--establishments',
      path.join(FIXTURES, 'sirene', 'StockEtablissement_utf8.csv'),
    );
    expect([0, 1]).toContain(run.code);
    expect(run.stdout).toMatch(/^read \d+, imported \d+ \(new \d+, changed 0, unchanged 0\)/m);
    const { data } = await details('FR', '552100554');
    expect(data).toMatchObject({
      vatNumber: 'FR96552100554',
      companyTypeCode: '5710',
      address: { country: 'FR', street: 'BD HAUSSMANN', number: '12B', postalCode: '75009', place: 'PARIS' },
      activities: ['6201'],
      otherNames: ['ADN', 'ATELIERS DU NORD', 'ADN PARIS', 'ADN "CONSEIL"'],
    });
  });

  it('imports the same pair out of siren order alike (sorted on disk): nothing changes', async () => {
    const unsorted = path.join(FIXTURES, 'sirene-unsorted');
    const run = await importCli(
      '--format',
      'sirene',
      path.join(unsorted, 'StockUniteLegale_utf8.csv'),
      '--establishments',
      path.join(unsorted, 'StockEtablissement_utf8.csv'),
    );
    expect([0, 1]).toContain(run.code);
    expect(run.stdout).toMatch(/^read \d+, imported (\d+) \(new 0, changed 0, unchanged \1\)/m);
    expect((await details('FR', '552100554')).data.address).toMatchObject({ street: 'BD HAUSSMANN' });
  });
});
