/**
 * Demo lists of the local stage (contract §7): for both demo accounts, static and smart lists, shared
 * and private, with companies in every state and their contacts, so every list endpoint shows
 * something. Static lists are filled through the lists store directly (lists are not company data);
 * smart lists are created through the same use case as `POST /v1/lists` (so their companies are the
 * evaluation's: every match NEW) and some of them then moved to SAVED and ARCHIVED through the use case
 * of `PATCH /v1/lists/{id}/companies`. Deterministic: on a fresh table the ids are 1..7 in the order
 * below, and the companies are picked by rule from the demo records, so any prefix of the demo data
 * works.
 *
 * | id | account | name                          | type   | shared | createdBy            | states                   |
 * |----|---------|-------------------------------|--------|--------|----------------------|--------------------------|
 * | 1  | acme    | Prospects Flanders            | STATIC | yes    | alice@acme.example   | SAVED, ARCHIVED          |
 * | 2  | acme    | Alice's shortlist             | STATIC | no     | alice@acme.example   | SAVED                    |
 * | 3  | acme    | Bob's accounts                | STATIC | no     | bob@acme.example     | SAVED (alice: 404)       |
 * | 4  | acme    | Software and consulting in BE | SMART  | yes    | alice@acme.example   | NEW, SAVED, ARCHIVED     |
 * | 5  | globex  | Globex targets                | STATIC | yes    | carol@globex.example | SAVED, ARCHIVED          |
 * | 6  | globex  | Construction watch            | SMART  | no     | dave@globex.example  | NEW, SAVED, ARCHIVED     |
 * | 7  | globex  | Carol's new list              | STATIC | no     | carol@globex.example | empty                    |
 */
import type { CompanyRef } from '../../lib/companies/identifiers';
import type { Filters } from '../../lib/lists/filters';
import type { DemoRecord } from '../../test/fixtures/demo-data/records';

export interface DemoList {
  accountId: string;
  name: string;
  type: 'STATIC' | 'SMART';
  shared: boolean;
  createdBy: string;
  columns: string[];
  filters: Filters | null;
  /**
   * Members by state, each group added at its own time (so `matchedSince` differs between groups). A
   * smart list's NEW group is what its evaluation finds; its other groups are moved there from NEW.
   */
  groups: { state: 'NEW' | 'SAVED' | 'ARCHIVED'; companies: DemoRecord[] }[];
}

const CREATED_AT = Date.parse('2026-11-02T08:30:00.000Z');
const HOUR = 3_600_000;

const hasActivity = (record: DemoRecord, prefixes: string[]) =>
  record.activities.some((code) => prefixes.some((prefix) => code.startsWith(prefix)));

/** A static list: no filters, and the default columns unless it says otherwise. */
const staticList = (
  list: Omit<DemoList, 'type' | 'columns' | 'filters'> & { columns?: string[] },
): DemoList => ({
  type: 'STATIC',
  columns: ['country', 'vatNumber', 'activities'],
  filters: null,
  ...list,
});

/** The demo lists over these records (what `npm start` and the tests load). */
export function demoLists(records: readonly DemoRecord[]): DemoList[] {
  const withContacts = records.filter((r) => r.contacts.length > 0);
  const be = withContacts.filter((r) => r.country === 'BE');
  const software = records.filter((r) => r.country === 'BE' && hasActivity(r, ['62', '70']));
  const construction = records.filter((r) => hasActivity(r, ['41', '43']));
  return [
    staticList({
      accountId: 'acme',
      name: 'Prospects Flanders',
      shared: true,
      createdBy: 'alice@acme.example',
      groups: [
        { state: 'SAVED', companies: be.slice(0, 6) },
        { state: 'SAVED', companies: be.slice(6, 10) },
        { state: 'ARCHIVED', companies: be.slice(10, 13) },
      ],
    }),
    staticList({
      accountId: 'acme',
      name: "Alice's shortlist",
      shared: false,
      createdBy: 'alice@acme.example',
      columns: ['country', 'place', 'revenue', 'healthIndicator'],
      groups: [{ state: 'SAVED', companies: withContacts.filter((r) => r.country !== 'BE').slice(0, 5) }],
    }),
    staticList({
      accountId: 'acme',
      name: "Bob's accounts",
      shared: false,
      createdBy: 'bob@acme.example',
      groups: [{ state: 'SAVED', companies: withContacts.slice(20, 24) }],
    }),
    {
      accountId: 'acme',
      name: 'Software and consulting in BE',
      type: 'SMART',
      shared: true,
      createdBy: 'alice@acme.example',
      columns: ['activities', 'place', 'employees'],
      filters: { countries: ['BE'], activities: ['62', '70'] },
      groups: [
        { state: 'SAVED', companies: software.slice(0, 2) },
        { state: 'ARCHIVED', companies: software.slice(2, 3) },
        { state: 'NEW', companies: software.slice(3) },
      ],
    },
    staticList({
      accountId: 'globex',
      name: 'Globex targets',
      shared: true,
      createdBy: 'carol@globex.example',
      groups: [
        { state: 'SAVED', companies: withContacts.slice(0, 8) },
        { state: 'ARCHIVED', companies: withContacts.slice(8, 10) },
      ],
    }),
    {
      accountId: 'globex',
      name: 'Construction watch',
      type: 'SMART',
      shared: false,
      createdBy: 'dave@globex.example',
      columns: ['activities', 'place', 'revenue'],
      filters: { activities: ['41', '43'] },
      groups: [
        { state: 'SAVED', companies: construction.slice(0, 2) },
        { state: 'ARCHIVED', companies: construction.slice(2, 4) },
        { state: 'NEW', companies: construction.slice(4) },
      ],
    },
    staticList({
      accountId: 'globex',
      name: "Carol's new list",
      shared: false,
      createdBy: 'carol@globex.example',
      groups: [],
    }),
  ];
}

/**
 * Stores the demo lists (into the table named by TABLE_NAME); returns their ids in order: 1 to 7, fixed,
 * so the docs and tests can name them (lists created through the API get ids drawn at random).
 */
export async function loadDemoLists(records: readonly DemoRecord[]): Promise<number[]> {
  // Imported late: the storage client reads the environment when first used.
  const { createList } = await import('../../lib/lists/store/lists');
  const { addMembers } = await import('../../lib/lists/store/members');
  const { createOneList, moveListCompanies } = await import('../../lib/lists/manage');
  const { SCOPES } = await import('../../lib/tokens/scopes');
  const ids: number[] = [];
  for (const [n, list] of demoLists(records).entries()) {
    if (list.type === 'SMART') {
      const caller = { accountId: list.accountId, userEmail: list.createdBy, scopes: [...SCOPES] };
      const created = await createOneList(
        caller,
        {
          name: list.name,
          type: 'SMART',
          columns: list.columns as never,
          shared: list.shared,
          filters: list.filters!,
        },
        { listId: n + 1 },
      );
      ids.push(created.body.id);
      for (const group of list.groups) {
        if (group.state === 'NEW' || group.companies.length === 0) continue;
        await moveListCompanies(
          caller,
          created.body.id,
          group.companies.map((record) => ({ raw: { ...refOf(record) }, state: group.state as 'SAVED' })),
        );
      }
      continue;
    }
    const createdAt = new Date(CREATED_AT + n * HOUR);
    const stored = await createList(
      {
        accountId: list.accountId,
        name: list.name,
        type: list.type,
        columns: list.columns,
        shared: list.shared,
        notificationsEnabled: list.shared,
        createdBy: list.createdBy,
        createdAt: createdAt.toISOString(),
        filters: null,
      },
      { id: n + 1 },
    );
    ids.push(stored.id);
    for (const [g, group] of list.groups.entries()) {
      const members = group.companies.map((record) => ({
        ref: refOf(record),
        contacts: record.contacts.length,
      }));
      if (members.length === 0) continue;
      // A day after creation, then a group every few hours: matchedSince and updatedAt differ.
      const now = new Date(createdAt.getTime() + 24 * HOUR + g * 5 * HOUR + n * 7 * 60_000);
      await addMembers(list.accountId, stored.id, members, { state: group.state, now });
    }
  }
  return ids;
}

const refOf = ({ country, companyNumber }: DemoRecord): CompanyRef => ({ country, companyNumber });
