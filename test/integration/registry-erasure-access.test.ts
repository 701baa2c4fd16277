/**
 * (ext) Erasure (contract §11.5.6) in process, as the import engine's workers run it on AWS: every
 * storage call of the erasure and its derivations checked against what the import's steps declare
 * (lib/import/storage-access.ts), so an erasure never needs a permission its worker lacks. The company
 * is in a watched static list and a smart list; it leaves both, and no event is derived.
 */
import { getRelationships } from '../../lib/companies/holdings-store';
import { NAME_WITHHELD } from '../../lib/import/sources/unit';
import { getListCompanies } from '../../lib/lists/lists';
import { addCompanies } from '../../lib/lists/add-companies';
import { createOneList, getOneList } from '../../lib/lists/manage';
import { readEvents } from '../../lib/events/store';
import { ALICE } from '../support/events';
import { asImportWorkers } from '../support/import-access';
import { beNumber, ref, registry, unit } from '../support/registry-units';
import { useFreshTable } from '../support/table';

useFreshTable();
jest.setTimeout(120_000);

const withheld = (n: number) =>
  ({
    kind: 'skipped',
    reason: NAME_WITHHELD,
    source: { file: 'enterprise.csv', line: n + 1 },
    company: { country: 'BE', companyNumber: beNumber(n) },
  }) as const;

test('an erased company leaves a watched static list and a smart list, within the declared access', async () => {
  await registry([unit(1), unit(2)]);
  const watched = (
    await createOneList(ALICE, { name: 'Watched', type: 'STATIC', notifications: { enabled: true } })
  ).body.id;
  await addCompanies(ALICE, watched, [{ country: 'BE', companyNumber: beNumber(1) }]);
  const smart = (
    await createOneList(ALICE, { name: 'Software', type: 'SMART', filters: { activities: ['62'] } })
  ).body.id;
  expect((await getOneList(ALICE, smart)).amountOfCompanies).toBe(2);
  const eventsBefore = (await readEvents(ALICE.accountId, 0, 500, Date.now())).events.length;

  const { summary } = await asImportWorkers(() => registry([withheld(1)]));
  expect(summary).toMatchObject({ read: 1, imported: 1, changed: 1, updates: 0, rejected: 0 });
  expect(summary.skipped.size).toBe(0);

  expect(await getRelationships(ref(1))).toBeNull();
  expect((await getListCompanies(ALICE, watched, { type: 'ALL', limit: 10, offset: 0 })).data).toEqual([]);
  expect(await getOneList(ALICE, watched)).toMatchObject({ amountOfCompanies: 0 });
  const left = await getListCompanies(ALICE, smart, { type: 'ALL', limit: 10, offset: 0 });
  expect(left.data.map((c) => c.identifier.companyNumber)).toEqual([beNumber(2)]);
  expect(await getOneList(ALICE, smart)).toMatchObject({ amountOfCompanies: 1, newResults: 1 });
  expect((await readEvents(ALICE.accountId, 0, 500, Date.now())).events).toHaveLength(eventsBefore);

  // Again: nothing stored of it, so left out on purpose.
  const again = await asImportWorkers(() => registry([withheld(1)]));
  expect(again.summary).toMatchObject({ read: 0, imported: 0, changed: 0 });
  expect(again.summary.skipped).toEqual(new Map([[NAME_WITHHELD, 1]]));
});
