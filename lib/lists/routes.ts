/** The list endpoints (contract §7.2–§7.6). */
import type { Route } from '../http/route';
import type { StorageAccess } from '../storage/access';
import * as partitions from '../storage/partitions';
import {
  createListRequest,
  deleteListRequest,
  getListRequest,
  listSchema,
  moveListCompaniesRequest,
  moveListCompaniesResultSchema,
  updateListRequest,
  addListCompaniesRequest,
  addListCompaniesResultSchema,
  getListCompaniesRequest,
  getListContactsRequest,
  getListsRequest,
  listCompaniesPageSchema,
  listContactsPageSchema,
  listsPageSchema,
} from './schemas';

/**
 * A page of a list's companies or contacts: the list item, one Query of its order (a state's in the
 * table; every state's, type ALL or a smart list's contacts, in gsi1), then the page's companies.
 */
const listPageStorage = {
  GetItem: [partitions.accountLists],
  Query: [partitions.listOrder, partitions.listOrderAll],
  BatchGetItem: [partitions.company],
} as const satisfies StorageAccess;

export const getLists = {
  method: 'GET',
  path: '/v1/lists',
  summary: "The lists the caller can see (its own and its account's shared ones), newest change first",
  scope: 'lists:read',
  storage: { Query: [partitions.accountLists] },
  request: getListsRequest,
  response: listsPageSchema,
} as const satisfies Route;

export const getListCompanies = {
  method: 'GET',
  path: '/v1/lists/{id}/companies',
  summary: 'The companies of a list, by state, latest match first',
  scope: 'lists:read',
  storage: listPageStorage,
  request: getListCompaniesRequest,
  response: listCompaniesPageSchema,
} as const satisfies Route;

export const getListContacts = {
  method: 'GET',
  path: '/v1/lists/{id}/contacts',
  summary: 'The contacts of the companies of a list that are not archived',
  scope: 'lists:read',
  storage: listPageStorage,
  request: getListContactsRequest,
  response: listContactsPageSchema,
} as const satisfies Route;

export const addListCompanies = {
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
  conflicts: ['LIST_NOT_STATIC'],
} as const satisfies Route;

export const getList = {
  method: 'GET',
  path: '/v1/lists/{id}',
  summary: 'One list the caller can see',
  scope: 'lists:read',
  storage: { GetItem: [partitions.accountLists] },
  request: getListRequest,
  response: listSchema,
} as const satisfies Route;

export const createList = {
  method: 'POST',
  path: '/v1/lists',
  summary: 'Creates a list; a SMART list holds at once the companies matching its filters',
  scope: 'lists:write',
  // The id, the list and its name in one transaction; a SMART list's first companies are those of
  // the first filter profiles of its countries it matches (a bounded read: the rest is the worker's
  // job), written while it is hidden, then revealed with its counters.
  storage: {
    GetItem: [partitions.accountLists],
    // The bound checked first against the filters' estimated matches (a few counter items).
    BatchGetItem: [partitions.matchCounts],
    Query: [partitions.filterProfiles, partitions.accountLists],
    UpdateItem: [partitions.accountLists, partitions.smartListEvaluations],
    PutItem: [
      partitions.accountLists,
      partitions.listIdClaims,
      partitions.smartLists,
      partitions.listCleanups,
      partitions.watchedLists,
    ],
    BatchWriteItem: [partitions.listMembers, partitions.listOrder],
    DeleteItem: [partitions.accountLists, partitions.smartLists],
    ConditionCheckItem: [partitions.accountLists],
  },
  request: createListRequest,
  status: 201,
  response: listSchema,
  conflicts: ['LIST_NAME_TAKEN', 'LIMIT_REACHED'],
} as const satisfies Route;

export const updateList = {
  method: 'PATCH',
  path: '/v1/lists/{id}',
  summary: "Changes a list's name, columns, sharing (its creator only), notifications or filters",
  scope: 'lists:write',
  // A rename moves the name claim; new filters move the smart-list entry and re-evaluate a bounded
  // part of the list: its NEW members (their order) against their filter profiles, then the first
  // filter profiles of its countries, companies entering and leaving in batches, the list's counters
  // moved by one update per 500 of them (flip-intents.ts), the account's count of smart-list
  // companies with them; what is left over is a job for the worker.
  storage: {
    GetItem: [partitions.accountLists],
    BatchGetItem: [
      partitions.accountLists,
      partitions.listMembers,
      partitions.matchCounts,
      partitions.filterProfiles,
    ],
    Query: [partitions.listOrder, partitions.filterProfiles, partitions.accountLists],
    UpdateItem: [partitions.accountLists, partitions.smartListEvaluations],
    PutItem: [
      partitions.accountLists,
      partitions.smartLists,
      partitions.listMembers,
      partitions.listOrder,
      partitions.watchedLists,
    ],
    DeleteItem: [
      partitions.accountLists,
      partitions.listMembers,
      partitions.listOrder,
      partitions.watchedLists,
      partitions.smartListEvaluations,
    ],
    BatchWriteItem: [partitions.listMembers, partitions.listOrder],
    ConditionCheckItem: [partitions.accountLists],
  },
  request: updateListRequest,
  response: listSchema,
  conflicts: ['LIST_NAME_TAKEN', 'LIMIT_REACHED'],
} as const satisfies Route;

export const deleteList = {
  method: 'DELETE',
  path: '/v1/lists/{id}',
  summary: 'Deletes a list and its companies (its creator only)',
  scope: 'lists:write',
  // The list, its name and smart-list entry go at once; a clean-up entry leaves its members to the worker.
  // The account's count of lists moves down in the same transaction (counted first if it predates it).
  storage: {
    GetItem: [partitions.accountLists],
    Query: [partitions.accountLists],
    UpdateItem: [partitions.accountLists],
    DeleteItem: [partitions.accountLists, partitions.smartLists, partitions.watchedLists],
    PutItem: [partitions.listCleanups],
  },
  request: deleteListRequest,
  status: 204,
} as const satisfies Route;

export const moveListCompanies = {
  method: 'PATCH',
  path: '/v1/lists/{id}/companies',
  summary: 'Moves companies of a list between states (NEW, SAVED, ARCHIVED)',
  scope: 'lists:write',
  // The members read (with the list item's contact counts), then member, order items and counters
  // moved in one transaction per 33; an import's flips found on the list past their lease are
  // finished first (members and order items in batches: flip-intents.ts).
  storage: {
    GetItem: [partitions.accountLists],
    BatchGetItem: [partitions.accountLists, partitions.listMembers],
    UpdateItem: [partitions.listMembers, partitions.accountLists],
    PutItem: [partitions.listOrder],
    DeleteItem: [partitions.listOrder],
    BatchWriteItem: [partitions.listMembers, partitions.listOrder],
  },
  request: moveListCompaniesRequest,
  response: moveListCompaniesResultSchema,
} as const satisfies Route;

/** The domain's routes by id, for the route table (lib/routes.ts). */
export const listRoutes = {
  getLists,
  getListCompanies,
  getListContacts,
  addListCompanies,
  getList,
  createList,
  updateList,
  deleteList,
  moveListCompanies,
} as const satisfies Record<string, Route>;
