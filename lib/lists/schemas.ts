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
  limitQuery,
  offsetQuery,
  paginationQuery,
  paginationSchema,
} from '../http/schemas';
import { filtersSchema } from './filters';
import { ENTRY_PROPERTIES } from '../matching/entry';

/** A list id in a path: a positive integer (anything else is 400; an unknown id is 404). */
const listPathParams = /* @__PURE__ */ v.object({
  id: /* @__PURE__ */ v.pipe(
    /* @__PURE__ */ v.string('must be a positive integer'),
    /* @__PURE__ */ v.regex(/^[1-9]\d{0,14}$/, 'must be a positive integer'),
    /* @__PURE__ */ v.transform(Number),
  ),
});

const OVERVIEW_TYPES = ['OVERVIEW', 'STATIC', 'SMART'] as const;
export type OverviewType = (typeof OVERVIEW_TYPES)[number];
const COMPANY_TYPES = ['ALL', 'SAVED', 'ARCHIVED', 'NEW'] as const;
export type CompanyType = (typeof COMPANY_TYPES)[number];

const typeQuery = <const T extends readonly [string, ...string[]]>(values: T, fallback: T[number]) =>
  v.optional(v.picklist(values, `must be one of ${values.join(', ')}`), fallback);

export const getListsRequest = {
  query: /* @__PURE__ */ v.object({
    type: /* @__PURE__ */ typeQuery(OVERVIEW_TYPES, 'OVERVIEW'),
    limit: limitQuery,
    offset: offsetQuery,
  }),
};

export const getListCompaniesRequest = {
  params: listPathParams,
  query: /* @__PURE__ */ v.object({
    type: /* @__PURE__ */ typeQuery(COMPANY_TYPES, 'ALL'),
    limit: limitQuery,
    offset: offsetQuery,
  }),
};

export const getListContactsRequest = {
  params: listPathParams,
  query: /* @__PURE__ */ v.object(paginationQuery),
};

// ---- PUT /v1/lists/{id}/companies (§7.5) -------------------------------------------------------

const MAX_PROPERTY_LENGTH = 200;
const MAX_ENTRIES = 100;

/** Any JSON object: the entries of the PUT and the PATCH judge their members themselves. */
const anObject = /* @__PURE__ */ v.custom<Record<string, unknown>>(
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
const ENTRY_DESCRIPTION = `At least one of ${/* @__PURE__ */ ENTRY_PROPERTIES.join(', ')}; the entry is echoed as sent.`;
const entrySchema = /* @__PURE__ */ v.pipe(
  anObject,
  /* @__PURE__ */ documentedAs<Record<string, unknown>>(
    /* @__PURE__ */ v.pipe(
      /* @__PURE__ */ v.object(
        /* @__PURE__ */ Object.fromEntries(
          /* @__PURE__ */ ENTRY_PROPERTIES.map((key) => [
            key,
            v.optional(v.pipe(v.string(), v.maxLength(MAX_PROPERTY_LENGTH))),
          ]),
        ),
      ),
      /* @__PURE__ */ v.description(ENTRY_DESCRIPTION),
    ),
  ),
  /* @__PURE__ */ v.rawCheck(({ dataset, addIssue }) => {
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
  body: /* @__PURE__ */ jsonObject({
    companies: /* @__PURE__ */ oneToHundred(entrySchema),
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
const NAME_LENGTH = `must be 1 to ${MAX_NAME} characters after trimming`;
const listName = /* @__PURE__ */ v.pipe(
  /* @__PURE__ */ v.string('must be a string'),
  /* @__PURE__ */ v.transform((name) => name.trim()),
  /* @__PURE__ */ v.minLength(1, NAME_LENGTH),
  /* @__PURE__ */ atMostCharacters(MAX_NAME, NAME_LENGTH),
);
const NOT_A_COLUMN = `must be one of ${/* @__PURE__ */ LIST_COLUMNS.join(', ')}`;
const columns = /* @__PURE__ */ v.pipe(
  /* @__PURE__ */ v.array(
    /* @__PURE__ */ v.picklist(LIST_COLUMNS, NOT_A_COLUMN),
    'must be an array of columns',
  ),
  /* @__PURE__ */ v.check((c) => new Set(c).size === c.length, 'must not name a column twice'),
);
const notifications = /* @__PURE__ */ v.object(
  { enabled: /* @__PURE__ */ v.boolean('must be true or false') },
  (issue) => (issue.path ? 'is required' : 'must be an object with enabled'),
);
const shared = /* @__PURE__ */ v.boolean('must be true or false');

export const createListRequest = {
  body: /* @__PURE__ */ jsonObject({
    name: listName,
    type: /* @__PURE__ */ v.picklist(['STATIC', 'SMART'], 'must be STATIC or SMART'),
    columns: /* @__PURE__ */ v.optional(columns),
    shared: /* @__PURE__ */ v.optional(shared),
    notifications: /* @__PURE__ */ v.optional(notifications),
    filters: /* @__PURE__ */ v.optional(filtersSchema),
  }),
};
export type CreateListBody = v.InferOutput<typeof createListRequest.body>;

const UPDATABLE = ['name', 'columns', 'shared', 'notifications', 'filters'] as const;
const NOTHING_TO_UPDATE = `must have at least one of ${/* @__PURE__ */ UPDATABLE.join(', ')}`;
export const updateListRequest = {
  params: listPathParams,
  body: /* @__PURE__ */ v.pipe(
    /* @__PURE__ */ jsonObject({
      name: /* @__PURE__ */ v.optional(listName),
      columns: /* @__PURE__ */ v.optional(columns),
      shared: /* @__PURE__ */ v.optional(shared),
      notifications: /* @__PURE__ */ v.optional(notifications),
      filters: /* @__PURE__ */ v.optional(filtersSchema),
      // `type` is fixed at creation: sending it is an error, not an ignored field.
      type: /* @__PURE__ */ v.optional(
        /* @__PURE__ */ v.custom<never>(() => false, 'cannot be changed: a list keeps its type'),
      ),
    }),
    /* @__PURE__ */ v.check((body) => UPDATABLE.some((key) => body[key] !== undefined), NOTHING_TO_UPDATE),
  ),
};
export type UpdateListBody = v.InferOutput<typeof updateListRequest.body>;

export const deleteListRequest = { params: listPathParams };

/**
 * A `PATCH …/companies` entry: `state` decides the request's shape (SAVED or ARCHIVED, else 400);
 * `country` and `companyNumber` are judged per item (§2.2 messages), and echoed as sent.
 */
const moveEntry = /* @__PURE__ */ v.pipe(
  anObject,
  /* @__PURE__ */ documentedAs<Record<string, unknown>>(
    /* @__PURE__ */ v.pipe(
      /* @__PURE__ */ v.object({
        country: /* @__PURE__ */ v.optional(/* @__PURE__ */ v.string()),
        companyNumber: /* @__PURE__ */ v.optional(/* @__PURE__ */ v.string()),
        state: /* @__PURE__ */ v.picklist(['SAVED', 'ARCHIVED']),
      }),
      /* @__PURE__ */ v.description(
        '`country` and `companyNumber` are judged per entry (`failed`), echoed as sent.',
      ),
    ),
  ),
  /* @__PURE__ */ v.rawTransform(({ dataset, addIssue, NEVER }) => {
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
  body: /* @__PURE__ */ jsonObject({
    companies: /* @__PURE__ */ oneToHundred(moveEntry),
  }),
};

export const moveListCompaniesResultSchema = /* @__PURE__ */ v.object({
  updated: /* @__PURE__ */ v.number(),
  failed: /* @__PURE__ */ v.array(
    /* @__PURE__ */ v.object({
      parameters: /* @__PURE__ */ v.record(/* @__PURE__ */ v.string(), /* @__PURE__ */ v.unknown()),
      message: /* @__PURE__ */ v.string(),
    }),
  ),
});
export type MoveListCompaniesResult = v.InferOutput<typeof moveListCompaniesResultSchema>;

// ---- Answers ----------------------------------------------------------------------------------

export const listSchema = /* @__PURE__ */ v.object({
  id: /* @__PURE__ */ v.number(),
  name: /* @__PURE__ */ v.string(),
  type: /* @__PURE__ */ v.picklist(['STATIC', 'SMART']),
  columns: /* @__PURE__ */ v.array(/* @__PURE__ */ v.picklist(LIST_COLUMNS)),
  shared: /* @__PURE__ */ v.boolean(),
  notifications: /* @__PURE__ */ v.object({ enabled: /* @__PURE__ */ v.boolean() }),
  amountOfCompanies: /* @__PURE__ */ v.pipe(
    /* @__PURE__ */ v.number(),
    /* @__PURE__ */ v.description(
      'The companies of the list that are not ARCHIVED. While a SMART list is still evaluated in the background (a create or filter change evaluates at most 10,000 companies at once), the companies evaluated so far: it grows until the evaluation is done.',
    ),
  ),
  newResults: /* @__PURE__ */ v.pipe(
    /* @__PURE__ */ v.nullable(/* @__PURE__ */ v.number()),
    /* @__PURE__ */ v.description(
      'NEW companies of a SMART list (evaluated so far, as `amountOfCompanies`); null on a STATIC list.',
    ),
  ),
  updatedAt: /* @__PURE__ */ v.string(),
  createdAt: /* @__PURE__ */ v.string(),
  createdBy: /* @__PURE__ */ v.string(),
});
export type ListAnswer = v.InferOutput<typeof listSchema>;

export const listsPageSchema = /* @__PURE__ */ v.object({
  data: /* @__PURE__ */ v.array(listSchema),
  pagination: paginationSchema,
});

export const listCompaniesPageSchema = /* @__PURE__ */ v.object({
  data: /* @__PURE__ */ v.array(
    /* @__PURE__ */ v.object({ identifier: identifierSchema, matchedSince: /* @__PURE__ */ v.string() }),
  ),
  pagination: paginationSchema,
});
export type ListCompaniesPage = v.InferOutput<typeof listCompaniesPageSchema>;

export const listContactsPageSchema = /* @__PURE__ */ v.object({
  data: /* @__PURE__ */ v.array(
    /* @__PURE__ */ v.object({
      jobTitle: /* @__PURE__ */ v.nullable(/* @__PURE__ */ v.string()),
      identifier: /* @__PURE__ */ v.object({
        contactId: /* @__PURE__ */ v.number(),
        firstName: /* @__PURE__ */ v.string(),
        lastName: /* @__PURE__ */ v.string(),
      }),
      company: identifierSchema,
    }),
  ),
  pagination: paginationSchema,
});
export type ListContactsPage = v.InferOutput<typeof listContactsPageSchema>;

export const addListCompaniesResultSchema = /* @__PURE__ */ v.object({
  success: /* @__PURE__ */ v.boolean(),
  message: /* @__PURE__ */ v.string(),
  failed: /* @__PURE__ */ v.array(
    /* @__PURE__ */ v.object({
      parameters: /* @__PURE__ */ v.record(/* @__PURE__ */ v.string(), /* @__PURE__ */ v.string()),
      message: /* @__PURE__ */ v.string(),
    }),
  ),
});
export type AddListCompaniesResult = v.InferOutput<typeof addListCompaniesResultSchema>;
