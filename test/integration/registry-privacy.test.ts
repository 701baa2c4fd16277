/**
 * (ext) Privacy over time (contract §11.3, §11.5.6): a value a later registry file withholds is erased
 * from what is stored, never kept from an earlier file. Through the command into DynamoDB Local, read
 * back through the API: a SIRENE unit that turns partially diffusible (`P`, `[ND]`), with and without
 * the establishments file; a KBO seat an update deletes.
 */
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { getCompanyDetails } from '../../lib/companies/details';
import { runCli } from '../support/cli';
import { sireneRows } from '../support/sirene-samples';
import { useFreshTable } from '../support/table';

const table = useFreshTable();
jest.setTimeout(180_000);

const FIXTURES = path.join(__dirname, '..', 'fixtures', 'registries');
const importCli = (...args: string[]) => runCli('infra/cli/import.ts', args, table.name);
const details = async (companyNumber: string) =>
  (await getCompanyDetails({ countryCode: 'FR', companyNumber }, '2026-11-29')).data;

let scratch: string;
beforeAll(async () => {
  scratch = await mkdtemp(path.join(tmpdir(), 'registry-privacy-'));
});
afterAll(() => rm(scratch, { recursive: true, force: true }));

async function stock(name: string, units: string, establishments?: string): Promise<string[]> {
  const unitsPath = path.join(scratch, `${name}-StockUniteLegale_utf8.csv`);
  await writeFile(unitsPath, units);
  if (establishments === undefined) return [unitsPath];
  const establishmentsPath = path.join(scratch, `${name}-StockEtablissement_utf8.csv`);
  await writeFile(establishmentsPath, establishments);
  return [unitsPath, '--establishments', establishmentsPath];
}

describe('a SIRENE unit that turns partially diffusible', () => {
  it('had its full address and acronym from a file that gave them', async () => {
    const args = await stock(
      'open',
      await sireneRows('StockUniteLegale_utf8.csv', '912345675', {}),
      await sireneRows('StockEtablissement_utf8.csv', '912345675', {}),
    );
    const run = await importCli('--format', 'sirene', ...args);
    expect(run.code).toBe(0);
    expect(await details('912345675')).toMatchObject({
      name: 'ABC LOGICIELS',
      otherNames: ['ABC'],
      address: { street: 'RUE DES LILAS', number: '12', postalCode: '69003', place: 'LYON' },
    });
  });

  it('keeps only the municipality and loses the acronym once a file withholds them', async () => {
    const args = await stock(
      'partial',
      await sireneRows('StockUniteLegale_utf8.csv', '912345675', {
        statutDiffusionUniteLegale: 'P',
        sigleUniteLegale: '[ND]',
      }),
      await sireneRows('StockEtablissement_utf8.csv', '912345675', {
        statutDiffusionEtablissement: 'P',
        complementAdresseEtablissement: '[ND]',
        numeroVoieEtablissement: '[ND]',
        typeVoieEtablissement: '[ND]',
        libelleVoieEtablissement: '[ND]',
        codePostalEtablissement: '[ND]',
        coordonneeLambertAbscisseEtablissement: '[ND]',
        coordonneeLambertOrdonneeEtablissement: '[ND]',
      }),
    );
    const run = await importCli('--format', 'sirene', ...args);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/\(new 0, changed 1, unchanged 0\)/);
    expect(await details('912345675')).toMatchObject({
      name: 'ABC LOGICIELS',
      otherNames: [],
      address: { street: null, number: null, box: null, postalCode: null, place: 'LYON' },
    });
  });

  it('erases a stored street even from a units file alone, the municipality kept', async () => {
    // The street again, from an open file; then the unit partial in a units file without establishments.
    const open = await stock(
      'open-again',
      await sireneRows('StockUniteLegale_utf8.csv', '912345675', {}),
      await sireneRows('StockEtablissement_utf8.csv', '912345675', {}),
    );
    expect((await importCli('--format', 'sirene', ...open)).code).toBe(0);
    expect((await details('912345675')).address.street).toBe('RUE DES LILAS');

    const alone = await stock(
      'partial-alone',
      await sireneRows('StockUniteLegale_utf8.csv', '912345675', { statutDiffusionUniteLegale: 'P' }),
    );
    const run = await importCli('--format', 'sirene', ...alone);
    expect(run.code).toBe(0);
    expect((await details('912345675')).address).toEqual({
      country: 'FR',
      street: null,
      number: null,
      box: null,
      postalCode: null,
      place: 'LYON',
    });
  });
});

describe('a KBO seat an update deletes', () => {
  it('is erased: no street, postal code or number stays from the full extract', async () => {
    await importCli('--format', 'kbo', path.join(FIXTURES, 'kbo-full'));
    expect(
      (await getCompanyDetails({ countryCode: 'BE', companyNumber: '0403170701' }, '2026-11-29')).data
        .address,
    ).toMatchObject({
      street: 'Voorbeeldstraat',
      postalCode: '9000',
    });
    // The sample update, its address files listing 0403.170.701 and inserting nothing for it.
    const update = path.join(scratch, 'kbo-update');
    await cp(path.join(FIXTURES, 'kbo-update'), update, { recursive: true });
    await writeFile(path.join(update, 'address_delete.csv'), '"EntityNumber"\n"0403.170.701"\n');
    await writeFile(
      path.join(update, 'address_insert.csv'),
      (await readFile(path.join(update, 'address_insert.csv'), 'utf8')).split('\n')[0] + '\n',
    );
    const run = await importCli('--format', 'kbo', update);
    expect(run.code).toBe(0);
    const { address } = (
      await getCompanyDetails({ countryCode: 'BE', companyNumber: '0403170701' }, '2026-11-29')
    ).data;
    expect(address).toMatchObject({ street: null, number: null, box: null, postalCode: null });
    // Its place is its establishment's, as for any enterprise without a seat.
    expect(address.place).toBe('Gentbrugge');
  });
});
