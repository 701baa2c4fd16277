/**
 * List schemas (contract §7.2–§7.5): the requests of the list endpoints and their answers, in the
 * contract's key order (valibot builds its output in the order the entries are declared here).
 */
import * as v from 'valibot';
import { identifierSchema } from '../companies/schemas';
import {
  atMostCharacters,
  characterCount,
  documentedAs,
  jsonObject,
  paginationQuery,
  paginationSchema,
} from '../http/schemas';
import { filtersSchema } from './filters';
import { ENTRY_PROPERTIES } from '../matching/entry';

/** A list id in a path: a positive integer (anything else is 400; an unknown id is 404). */
const listPathParams = v.object({
  id: v.pipe(
    v.string('must be a positive integer'),
    v.regex(/^[1-9]\d{0,14}$/, 'must be a positive integer'),
    v.transform(Number),
  ),
});

const OVERVIEW_TYPES = ['OVERVIEW', 'STATIC', 'SMART'] as const;
export type OverviewType = (typeof OVERVIEW_TYPES)[number];
const COMPANY_TYPES = ['ALL', 'SAVED', 'ARCHIVED', 'NEW'] as const;
export type CompanyType = (typeof COMPANY_TYPES)[number];

const typeQuery = <const T extends readonly [string, ...string[]]>(values: T, fallback: T[number]) =>
  v.optional(v.picklist(values, `must be one of ${values.join(', ')}`), fallback);

export const getListsRequest = {
  query: v.object({ type: typeQuery(OVERVIEW_TYPES, 'OVERVIEW'), ...paginationQuery }),
};

export const getListCompaniesRequest = {
  params: listPathParams,
  query: v.object({ type: typeQuery(COMPANY_TYPES, 'ALL'), ...paginationQuery }),
};

export const getListContactsRequest = {
  params: listPathParams,
  query: v.object(paginationQuery),
};

// ---- PUT /v1/lists/{id}/companies (§7.5) -------------------------------------------------------

const MAX_PROPERTY_LENGTH = 200;
const MAX_ENTRIES = 100;

/** Any JSON object: the entries of the PUT and the PATCH judge their members themselves. */
const anObject = v.custom<Record<string, unknown>>(
  (input) => typeof input === 'object' && input !== null && !Array.isArray(input),
  'must be an object',
);

/** `companies` of the PUT and the PATCH: 1 to 100 entries (§7.5, §7.6). */
const oneToHundred = <T extends v.GenericSchema>(entry: T) =>
  v.pipe(
    v.array(entry, 'must be an array of companies'),
    v.minLength(1, 'must contain at least 1 company'),
    v.maxLength(MAX_ENTRIES, `must contain at most ${MAX_ENTRIES} companies`),
  );

/**
 * An entry is kept exactly as sent (its key order is echoed in `parameters`), so it is checked by
 * hand rather than rebuilt by an object schema: each known property, when present, a string of at
 * most 200 characters; at least one of them present. Unknown keys are ignored.
 */
const entrySchema = v.pipe(
  anObject,
  documentedAs<Record<string, unknown>>(
    v.pipe(
      v.object(
        Object.fromEntries(
          ENTRY_PROPERTIES.map((key) => [
            key,
            v.optional(v.pipe(v.string(), v.maxLength(MAX_PROPERTY_LENGTH))),
          ]),
        ),
      ),
      v.description(`At least one of ${ENTRY_PROPERTIES.join(', ')}; the entry is echoed as sent.`),
    ),
  ),
  v.rawCheck(({ dataset, addIssue }) => {
    if (!dataset.typed) return;
    const entry = dataset.value;
    let given = 0;
    // In the order sent, like the details of any other request.
    for (const key of Object.keys(entry)) {
      if (!(ENTRY_PROPERTIES as readonly string[]).includes(key)) continue;
      given++;
      const value = entry[key];
      const problem =
        typeof value !== 'string'
          ? 'must be a string'
          : characterCount(value) > MAX_PROPERTY_LENGTH
            ? `must be at most ${MAX_PROPERTY_LENGTH} characters`
            : null;
      if (problem) {
        addIssue({
          message: problem,
          path: [{ type: 'object', origin: 'value', input: entry, key, value }],
        });
      }
    }
    if (given === 0) addIssue({ message: `must have at least one of ${ENTRY_PROPERTIES.join(', ')}` });
  }),
);

export const addListCompaniesRequest = {
  params: listPathParams,
  body: jsonObject({
    companies: oneToHundred(entrySchema),
  }),
};

/** §7.2's columns. */
const LIST_COLUMNS = [
  'activities',
  'vatNumber',
  'country',
  'url',
  'socials',
  'description',
  'place',
  'employees',
  'revenue',
  'healthIndicator',
] as const;

// ---- Managing lists (§7.6) ----------------------------------------------------------------------

export const getListRequest = { params: listPathParams };

const MAX_NAME = 200;
const listName = v.pipe(
  v.string('must be a string'),
  v.transform((name) => name.trim()),
  v.minLength(1, `must be 1 to ${MAX_NAME} characters after trimming`),
  atMostCharacters(MAX_NAME, `must be 1 to ${MAX_NAME} characters after trimming`),
);
const columns = v.pipe(
  v.array(
    v.picklist(LIST_COLUMNS, `must be one of ${LIST_COLUMNS.join(', ')}`),
    'must be an array of columns',
  ),
  v.check((c) => new Set(c).size === c.length, 'must not name a column twice'),
);
const notifications = v.object({ enabled: v.boolean('must be true or false') }, (issue) =>
  issue.path ? 'is required' : 'must be an object with enabled',
);
const shared = v.boolean('must be true or false');

export const createListRequest = {
  body: jsonObject({
    name: listName,
    type: v.picklist(['STATIC', 'SMART'], 'must be STATIC or SMART'),
    columns: v.optional(columns),
    shared: v.optional(shared),
    notifications: v.optional(notifications),
    filters: v.optional(filtersSchema),
  }),
};
export type CreateListBody = v.InferOutput<typeof createListRequest.body>;

const UPDATABLE = ['name', 'columns', 'shared', 'notifications', 'filters'] as const;
export const updateListRequest = {
  params: listPathParams,
  body: v.pipe(
    jsonObject({
      name: v.optional(listName),
      columns: v.optional(columns),
      shared: v.optional(shared),
      notifications: v.optional(notifications),
      filters: v.optional(filtersSchema),
      // `type` is fixed at creation: sending it is an error, not an ignored field.
      type: v.optional(v.custom<never>(() => false, 'cannot be changed: a list keeps its type')),
    }),
    v.check(
      (body) => UPDATABLE.some((key) => body[key] !== undefined),
      `must have at least one of ${UPDATABLE.join(', ')}`,
    ),
  ),
};
export type UpdateListBody = v.InferOutput<typeof updateListRequest.body>;

export const deleteListRequest = { params: listPathParams };

/**
 * A `PATCH …/companies` entry: `state` decides the request's shape (SAVED or ARCHIVED, else 400);
 * `country` and `companyNumber` are judged per item (§2.2 messages), and echoed as sent.
 */
const moveEntry = v.pipe(
  anObject,
  documentedAs<Record<string, unknown>>(
    v.pipe(
      v.object({
        country: v.optional(v.string()),
        companyNumber: v.optional(v.string()),
        state: v.picklist(['SAVED', 'ARCHIVED']),
      }),
      v.description('`country` and `companyNumber` are judged per entry (`failed`), echoed as sent.'),
    ),
  ),
  v.rawTransform(({ dataset, addIssue, NEVER }) => {
    const state = dataset.value['state'];
    if (state !== 'SAVED' && state !== 'ARCHIVED') {
      addIssue({
        message: state === undefined ? 'is required' : 'must be SAVED or ARCHIVED',
        path: [{ type: 'object', origin: 'value', input: dataset.value, key: 'state', value: state }],
      });
      return NEVER;
    }
    return { raw: dataset.value, state: state as 'SAVED' | 'ARCHIVED' };
  }),
);

export const moveListCompaniesRequest = {
  params: listPathParams,
  body: jsonObject({
    companies: oneToHundred(moveEntry),
  }),
};

export const moveListCompaniesResultSchema = v.object({
  updated: v.number(),
  failed: v.array(v.object({ parameters: v.record(v.string(), v.unknown()), message: v.string() })),
});
export type MoveListCompaniesResult = v.InferOutput<typeof moveListCompaniesResultSchema>;

// ---- Answers ----------------------------------------------------------------------------------

export const listSchema = v.object({
  id: v.number(),
  name: v.string(),
  type: v.picklist(['STATIC', 'SMART']),
  columns: v.array(v.picklist(LIST_COLUMNS)),
  shared: v.boolean(),
  notifications: v.object({ enabled: v.boolean() }),
  amountOfCompanies: v.pipe(
    v.number(),
    v.description(
      'The companies of the list that are not ARCHIVED. While a SMART list is still evaluated in the background (a create or filter change evaluates at most 10,000 companies at once), the companies evaluated so far: it grows until the evaluation is done.',
    ),
  ),
  newResults: v.pipe(
    v.nullable(v.number()),
    v.description(
      'NEW companies of a SMART list (evaluated so far, as `amountOfCompanies`); null on a STATIC list.',
    ),
  ),
  updatedAt: v.string(),
  createdAt: v.string(),
  createdBy: v.string(),
});
export type ListAnswer = v.InferOutput<typeof listSchema>;

export const listsPageSchema = v.object({ data: v.array(listSchema), pagination: paginationSchema });

export const listCompaniesPageSchema = v.object({
  data: v.array(v.object({ identifier: identifierSchema, matchedSince: v.string() })),
  pagination: paginationSchema,
});
export type ListCompaniesPage = v.InferOutput<typeof listCompaniesPageSchema>;

export const listContactsPageSchema = v.object({
  data: v.array(
    v.object({
      jobTitle: v.nullable(v.string()),
      identifier: v.object({ contactId: v.number(), firstName: v.string(), lastName: v.string() }),
      company: identifierSchema,
    }),
  ),
  pagination: paginationSchema,
});
export type ListContactsPage = v.InferOutput<typeof listContactsPageSchema>;

export const addListCompaniesResultSchema = v.object({
  success: v.boolean(),
  message: v.string(),
  failed: v.array(v.object({ parameters: v.record(v.string(), v.string()), message: v.string() })),
});
export type AddListCompaniesResult = v.InferOutput<typeof addListCompaniesResultSchema>;
