/** The list endpoints (contract §7.2–§7.5). */
import type { Route } from '../http/route';
import { partitions } from '../storage/keys';
import {
  addListCompaniesRequest,
  addListCompaniesResultSchema,
  getListCompaniesRequest,
  getListContactsRequest,
  getListsRequest,
  listCompaniesPageSchema,
  listContactsPageSchema,
  listsPageSchema,
} from './schemas';

export const listRoutes = {
  getLists: {
    method: 'GET',
    path: '/v1/lists',
    summary: "The lists the caller can see (its own and its account's shared ones), newest change first",
    scope: 'lists:read',
    storage: { Query: [partitions.accountLists] },
    request: getListsRequest,
    response: listsPageSchema,
  },
  getListCompanies: {
    method: 'GET',
    path: '/v1/lists/{id}/companies',
    summary: 'The companies of a list, by state, latest match first',
    scope: 'lists:read',
    storage: {
      GetItem: [partitions.accountLists],
      Query: [partitions.listOrder],
      BatchGetItem: [partitions.company],
    },
    request: getListCompaniesRequest,
    response: listCompaniesPageSchema,
  },
  getListContacts: {
    method: 'GET',
    path: '/v1/lists/{id}/contacts',
    summary: 'The contacts of the companies of a list that are not archived',
    scope: 'lists:read',
    storage: {
      GetItem: [partitions.accountLists],
      Query: [partitions.listOrder],
      BatchGetItem: [partitions.company],
    },
    request: getListContactsRequest,
    response: listContactsPageSchema,
  },
  addListCompanies: {
    method: 'PUT',
    path: '/v1/lists/{id}/companies',
    summary: 'Adds companies to a static list, matched on what the caller knows of them (1..100 entries)',
    scope: 'lists:write',
    storage: {
      GetItem: [partitions.accountLists, partitions.idempotency],
      BatchGetItem: [partitions.company, partitions.matchIndex],
      PutItem: [partitions.listMembers, partitions.listOrder, partitions.idempotency],
      UpdateItem: [partitions.accountLists, partitions.idempotency],
      DeleteItem: [partitions.idempotency],
    },
    request: addListCompaniesRequest,
    response: addListCompaniesResultSchema,
    idempotent: true,
  },
} as const satisfies Record<string, Route>;
