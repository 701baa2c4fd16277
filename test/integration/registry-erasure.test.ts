/**
 * (ext) Erasure (contract §11.5.6): a stored company whose registry now withholds its name is erased —
 * nothing personal of it stays, it answers every company endpoint as a number never imported, search
 * and match no longer find it, it is nobody's lookalike, parent or child, and it leaves every list with
 * the lists' counters right. Through the command into DynamoDB Local, read back through the handlers:
 * a KBO natural person whose update no longer gives its name, and a SIRENE unit whose name turns `[ND]`.
 */
import { appendFile, cp, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { handler as getLegalEntities } from '../../functions/get-company-legal-entities';
import { handler as getLookalikes } from '../../functions/get-company-lookalikes';
import { handler as getRelationships } from '../../functions/get-company-relationships';
import { handler as matchHandler } from '../../functions/match-companies';
import { handler as moveCompanies } from '../../functions/move-list-companies';
import { handler as searchHandler } from '../../functions/search-companies';
import { frenchVatKey, type CompanyRef } from '../../lib/companies/identifiers';
import { getCompanyRecords } from '../../lib/companies/store';
import { addCompanies } from '../../lib/lists/add-companies';
import { getListCompanies } from '../../lib/lists/lists';
import { createOneList, getOneList } from '../../lib/lists/manage';
import { batchDelete, batchPut, getItem } from '../../lib/storage/batch';
import { getJournals, putJournal } from '../../lib/import/store';
import { tableName } from '../../lib/storage/client';
import * as keys from '../../lib/storage/keys';
import { ALICE, call } from '../support/events';
import { answers, UNKNOWN } from '../support/company-answers';
import { companyRecord, period } from '../support/records';
import { runCli } from '../support/cli';
import { sireneRows } from '../support/sirene-samples';
import { useFreshTable } from '../support/table';

const table = useFreshTable();
jest.setTimeout(300_000);

const FIXTURES = path.join(__dirname, '..', 'fixtures', 'registries');
const importCli = (args: string[], stdin = '') => runCli('infra/cli/import.ts', args, table.name, stdin);

/** The KBO natural person (`0712.345.630`, "Peeters, Jan") and the SIRENE sole proprietor (LUC BERNARD). */
const PERSON: CompanyRef = { country: 'BE', companyNumber: '0712345630' };
const TRADER: CompanyRef = { country: 'FR', companyNumber: '444444442' };
/** Companies of another source around the person: its holder, a company it controls, a lookalike. */
const HOLDER: CompanyRef = { country: 'NL', companyNumber: '12345678' };
const HELD: CompanyRef = { country: 'NL', companyNumber: '23456789' };
const FRIETKOT: CompanyRef = { country: 'NL', companyNumber: '34567890' };
/** A valid number never imported: what an erased company must answer like. */
const NEVER: CompanyRef = { country: 'BE', companyNumber: '0417497106' };

type Ref = CompanyRef;
const path_ = (ref: Ref) => ({ countryCode: ref.country, companyNumber: ref.companyNumber });

let scratch: string;
let staticList: number;
let smartList: number;
const legalEntityIds = new Map<string, string>();

async function sireneStock(
  name: string,
  unitChanges: Record<string, string> = {},
  siren = TRADER.companyNumber,
): Promise<string[]> {
  const units = path.join(scratch, `${name}-StockUniteLegale_utf8.csv`);
  const offices = path.join(scratch, `${name}-StockEtablissement_utf8.csv`);
  await writeFile(units, await sireneRows('StockUniteLegale_utf8.csv', siren, unitChanges));
  await writeFile(offices, await sireneRows('StockEtablissement_utf8.csv', siren));
  return ['--format', 'sirene', units, '--establishments', offices];
}

/** The trader's name withheld: partially diffusible, first and last names `[ND]`. */
const WITHHELD = {
  statutDiffusionUniteLegale: 'P',
  sexeUniteLegale: '[ND]',
  prenom1UniteLegale: '[ND]',
  nomUniteLegale: '[ND]',
};

const searched = async (q: string) =>
  ((await call(searchHandler, { resource: '/v1/companies', query: { q } })).body as Ref[]).map(
    (c) => `${c.country}${c.companyNumber}`,
  );
const matched = async (entryOf: Record<string, string>) => {
  const { body } = await call(matchHandler, {
    resource: '/v1/companies/match',
    body: { companies: [entryOf] },
  });
  return (body as Array<{ data: Array<{ identifier: Ref }> }>)[0]!.data.map(
    (c) => `${c.identifier.country}${c.identifier.companyNumber}`,
  );
};
const lookalikesOf = async (ref: Ref) => {
  const { body } = await call(getLookalikes, {
    resource: '/v1/companies/{countryCode}/{companyNumber}/lookalikes',
    pathParameters: path_(ref),
    query: { limit: '100' },
  });
  return (body as { data: Array<{ companyId: Ref }> }).data.map(
    (l) => `${l.companyId.country}${l.companyId.companyNumber}`,
  );
};
const relationshipsOf = async (ref: Ref) =>
  (
    await call(getRelationships, {
      resource: '/v1/companies/{countryCode}/{companyNumber}/relationships',
      pathParameters: path_(ref),
    })
  ).body as {
    data: { parents: Array<{ identifier: Ref | null }>; children: Array<{ identifier: Ref | null }> };
  };
const legalEntitiesOf = async (ref: Ref) =>
  (
    await call(getLegalEntities, {
      resource: '/v1/companies/{countryCode}/{companyNumber}/legal-entities',
      pathParameters: path_(ref),
    })
  ).body as { data: Array<{ legalEntityId: string; isPrimary: boolean }> };
const members = async (listId: number, type: 'ALL' | 'NEW' | 'SAVED' | 'ARCHIVED' = 'ALL') =>
  (await getListCompanies(ALICE, listId, { type, limit: 100, offset: 0 })).data.map(
    (c) => `${c.identifier.country}${c.identifier.companyNumber}`,
  );
const counters = async (listId: number) => {
  const list = await getOneList(ALICE, listId);
  return { amountOfCompanies: list.amountOfCompanies, newResults: list.newResults };
};
const key = (ref: Ref) => `${ref.country}${ref.companyNumber}`;

beforeAll(async () => {
  scratch = await mkdtemp(path.join(tmpdir(), 'registry-erasure-'));
  // Another source's data around the person: its holder, a company it controls, a lookalike; then KBO.
  const records = [
    companyRecord({
      ...PERSON,
      name: 'Jan Peeters',
      vatNumber: null,
      website: null,
      activities: ['56102'],
      financials: [period(2024)],
      shareholders: [{ ...HOLDER, name: 'Oud Fonds BV', percentage: 0.3 }],
      contacts: [{ contactId: 70001, firstName: 'Jan', lastName: 'Peeters', jobTitle: 'Zaakvoerder' }],
    }),
    companyRecord({
      ...HOLDER,
      name: 'Oud Fonds BV',
      vatNumber: null,
      website: null,
      shareholders: [],
      contacts: [],
    }),
    companyRecord({
      ...HELD,
      name: 'Frituur Holding BV',
      vatNumber: null,
      website: null,
      shareholders: [{ ...PERSON, name: 'Jan Peeters', percentage: 0.6 }],
      contacts: [],
    }),
    companyRecord({
      ...FRIETKOT,
      name: 'Frietkot Noord BV',
      vatNumber: null,
      website: null,
      activities: ['56102'],
      financials: [period(2024)],
      shareholders: [],
      contacts: [],
    }),
  ];
  const seeded = await importCli(
    ['-', '--as-of', '2025-08-01'],
    records.map((r) => JSON.stringify(r)).join('\n'),
  );
  expect(seeded.code).toBe(0);
  // The sample full extract holds an invalid number and a legal person without a name: exit 1.
  expect((await importCli(['--format', 'kbo', path.join(FIXTURES, 'kbo-full')])).code).toBe(1);
  expect((await importCli(await sireneStock('open'))).code).toBe(0);

  staticList = (await createOneList(ALICE, { name: 'Customers', type: 'STATIC' })).body.id;
  expect(
    await addCompanies(
      ALICE,
      staticList,
      [PERSON, FRIETKOT, TRADER].map((ref) => ({ country: ref.country, companyNumber: ref.companyNumber })),
    ),
  ).toMatchObject({ success: true, failed: [] });
  const moved = await call(moveCompanies, {
    method: 'PATCH',
    resource: '/v1/lists/{id}/companies',
    pathParameters: { id: String(staticList) },
    body: { companies: [{ ...TRADER, state: 'ARCHIVED' }] },
  });
  expect(moved.body).toMatchObject({ updated: 1 });
  smartList = (
    await createOneList(ALICE, {
      name: 'French makers',
      type: 'SMART',
      filters: { countries: ['FR'], activities: ['32'] },
    })
  ).body.id;
  for (const ref of [PERSON, TRADER])
    legalEntityIds.set(key(ref), (await legalEntitiesOf(ref)).data[0]!.legalEntityId);
});
afterAll(() => rm(scratch, { recursive: true, force: true }));

test('before: both are served, found, related, lookalikes and in lists', async () => {
  expect((await answers(PERSON, legalEntityIds.get(key(PERSON))!)).details).toBe(200);
  expect((await answers(TRADER, legalEntityIds.get(key(TRADER))!)).details).toBe(200);
  expect(await searched('Peeters')).toContain(key(PERSON));
  expect(await searched('Luc Bernard')).toContain(key(TRADER));
  expect(await lookalikesOf(FRIETKOT)).toContain(key(PERSON));
  expect((await relationshipsOf(HELD)).data.parents.map((p) => p.identifier)).toEqual([
    expect.objectContaining(PERSON),
  ]);
  expect((await relationshipsOf(HOLDER)).data.children.map((c) => c.identifier)).toEqual([
    expect.objectContaining(PERSON),
  ]);
  expect((await legalEntitiesOf(HELD)).data[0]!.isPrimary).toBe(false);
  expect((await members(staticList)).sort()).toEqual([key(TRADER), key(PERSON), key(FRIETKOT)].sort());
  expect(await counters(staticList)).toEqual({ amountOfCompanies: 2, newResults: null });
  expect(await members(smartList, 'NEW')).toEqual([key(TRADER)]);
  expect(await counters(smartList)).toEqual({ amountOfCompanies: 1, newResults: 1 });
});

test('a KBO natural person whose update no longer gives its name is erased', async () => {
  // The sample update, its denominations deleting the person's name and inserting none for it.
  const update = path.join(scratch, 'kbo-update');
  await cp(path.join(FIXTURES, 'kbo-update'), update, { recursive: true });
  await appendFile(path.join(update, 'denomination_delete.csv'), '"0712.345.630"\n');
  const run = await importCli(['--format', 'kbo', update]);
  expect(run.code).toBe(0);
  // Read and changed (what is stored of it changed), not skipped (§11.5.4).
  expect(run.stdout).not.toMatch(/name withheld/);
  expect(run.stdout).toMatch(/changed [1-9]/);

  expect(await answers(PERSON, legalEntityIds.get(key(PERSON))!)).toEqual(UNKNOWN);
  // Exactly as a number never imported (whose legal entity id is one no company has).
  expect(await answers(NEVER, '999999999999')).toEqual(UNKNOWN);
  // Nothing of it is stored: no company item, no list, no features, no feed, no filter profile.
  expect((await getCompanyRecords([PERSON])).size).toBe(0);
  for (const stored of [keys.lookalikes, keys.updateFeed, keys.filterProfile])
    expect(await getItem(tableName(), stored(PERSON))).toBeUndefined();

  expect(await searched('Peeters')).not.toContain(key(PERSON));
  expect(await searched('0712.345.630')).toEqual([]);
  expect(await matched({ companyNumber: '0712345630', country: 'BE' })).toEqual([]);
  expect(await matched({ name: 'Peeters, Jan', country: 'BE' })).not.toContain(key(PERSON));
  expect(await lookalikesOf(FRIETKOT)).not.toContain(key(PERSON));
  // Its holding shows as a shareholder not in our data; it holds nothing any more as served.
  expect((await relationshipsOf(HELD)).data.parents).toEqual([{ identifier: null }]);
  expect((await relationshipsOf(HOLDER)).data.children).toEqual([]);
  expect((await legalEntitiesOf(HELD)).data[0]!.isPrimary).toBe(true);

  expect((await members(staticList)).sort()).toEqual([key(TRADER), key(FRIETKOT)].sort());
  expect(await counters(staticList)).toEqual({ amountOfCompanies: 1, newResults: null });
  // PUT no longer finds it.
  expect(
    await addCompanies(ALICE, staticList, [{ country: 'BE', companyNumber: '0712345630' }]),
  ).toMatchObject({
    success: false,
    failed: [{ message: 'Company not found' }],
  });
});

test('a SIRENE unit whose name turns [ND] is erased, once; published again it comes back as new', async () => {
  const withheld = await sireneStock('withheld', WITHHELD);
  const run = await importCli(withheld);
  expect(run.code).toBe(0);
  expect(run.stdout).toMatch(
    /^read 1, imported 1 \(new 0, changed 1, unchanged 0\), rejected 0, updates 0, /m,
  );
  expect(run.stdout).not.toMatch(/^skipped/m);

  expect(await answers(TRADER, legalEntityIds.get(key(TRADER))!)).toEqual(UNKNOWN);
  expect(await searched('Luc Bernard')).not.toContain(key(TRADER));
  expect(
    await matched({
      VAT: `FR${String(frenchVatKey(TRADER.companyNumber)).padStart(2, '0')}${TRADER.companyNumber}`,
    }),
  ).toEqual([]);
  expect(await matched({ companyNumber: TRADER.companyNumber, country: 'FR' })).toEqual([]);
  // It leaves the smart list it was NEW in and the static list it was ARCHIVED in, counters with it.
  expect(await members(smartList)).toEqual([]);
  expect(await counters(smartList)).toEqual({ amountOfCompanies: 0, newResults: 0 });
  expect(await members(staticList)).toEqual([key(FRIETKOT)]);
  expect(await members(staticList, 'ARCHIVED')).toEqual([]);
  expect(await counters(staticList)).toEqual({ amountOfCompanies: 1, newResults: null });

  // The same file again changes nothing: the unit is left out on purpose now (§11.5.4).
  const again = await importCli(withheld);
  expect(again.code).toBe(0);
  expect(again.stdout).toMatch(/^skipped 1 \(name withheld: 1\)$/m);
  expect(again.stdout).toMatch(
    /^read 0, imported 0 \(new 0, changed 0, unchanged 0\), rejected 0, updates 0, /m,
  );
  expect(await counters(smartList)).toEqual({ amountOfCompanies: 0, newResults: 0 });

  // A file that gives the name again brings it back as a new company, with its old legal entity id.
  const back = await importCli(await sireneStock('back'));
  expect(back.stdout).toMatch(/\(new 1, changed 0, unchanged 0\)/);
  expect((await answers(TRADER, legalEntityIds.get(key(TRADER))!)).details).toBe(200);
  expect((await legalEntitiesOf(TRADER)).data[0]!.legalEntityId).toBe(legalEntityIds.get(key(TRADER)));
  expect(await members(smartList, 'NEW')).toEqual([key(TRADER)]);
  expect(await counters(smartList)).toEqual({ amountOfCompanies: 1, newResults: 1 });
  expect(await members(staticList)).toEqual([key(FRIETKOT)]);
});

test('an erasure cut off after the company went is derived by the next run that meets the withheld name', async () => {
  const ABC: CompanyRef = { country: 'FR', companyNumber: '912345675' };
  expect((await importCli(await sireneStock('abc', {}, ABC.companyNumber))).code).toBe(0);
  expect(await addCompanies(ALICE, staticList, [{ ...ABC }])).toMatchObject({ success: true });
  const before = await counters(staticList);

  // A run cut off as `eraseCompanies` leaves it: journal, mark, company item gone, nothing derived.
  const [stored] = (await getCompanyRecords([ABC])).values();
  const changeId = 'cut-off-run.1';
  await putJournal({
    changeId,
    asOf: '2026-11-29',
    entries: [{ company: ABC, before: stored!.record, gone: true }],
  });
  await batchPut(tableName(), [{ ...keys.companyErased(ABC), entity: 'CompanyErased', changeId }]);
  await batchDelete(tableName(), [keys.company(ABC)]);
  expect(await searched('ABC Logiciels')).toContain(key(ABC));

  const run = await importCli(
    await sireneStock('abc-withheld', { denominationUniteLegale: '[ND]' }, ABC.companyNumber),
  );
  expect(run.code).toBe(0);
  expect(run.stdout).toMatch(/^skipped 1 \(name withheld: 1\)$/m);
  expect(await searched('ABC Logiciels')).not.toContain(key(ABC));
  expect(await members(staticList)).not.toContain(key(ABC));
  expect(await counters(staticList)).toEqual({ ...before, amountOfCompanies: before.amountOfCompanies - 1 });
  expect(await getJournals([changeId])).toEqual([]);
});
