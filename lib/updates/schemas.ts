/**
 * Update schemas (contract §8.1): the requests of the single and bulk endpoints and their answers. A
 * legal entity shows as in §6.4 (`legalEntityId`, `countryCode`, `name`, `isPrimary`).
 */
import * as v from 'valibot';
import {
  integerField,
  jsonObject,
  offsetField,
  PAGE_LIMIT,
  PAGE_OFFSET,
  paginationQuery,
  paginationSchema,
} from '../http/schemas';
import { legalEntitySchema } from '../legal-entities/schemas';
import { UPDATE_TYPES } from './derive';

/** Contract §1.1, §9: bulk updates take `limit` 1..100 (default 4), and entities × limit ≤ 500. */
const MAX_LEGAL_ENTITIES = 100;
const BULK_LIMIT = { min: 1, max: 100, default: PAGE_LIMIT.default } as const;
export const BULK_UPDATES = {
  legalEntities: MAX_LEGAL_ENTITIES,
  limit: BULK_LIMIT,
  offset: PAGE_OFFSET,
  /** `legalEntities.length × limit` at most. */
  updates: 500,
} as const;

export const updateSchema = /* @__PURE__ */ v.object({
  id: /* @__PURE__ */ v.string(),
  type: /* @__PURE__ */ v.picklist(UPDATE_TYPES),
  title: /* @__PURE__ */ v.string(),
  time: /* @__PURE__ */ v.string(),
  sourceUrl: /* @__PURE__ */ v.null(),
  sourceType: /* @__PURE__ */ v.null(),
  status: /* @__PURE__ */ v.literal('ACTIVE'),
});
export type UpdateAnswer = v.InferOutput<typeof updateSchema>;

const updatesData = /* @__PURE__ */ v.object({ updates: /* @__PURE__ */ v.array(updateSchema) });

export const legalEntityUpdatesSchema = /* @__PURE__ */ v.object({
  identifier: legalEntitySchema,
  data: updatesData,
  pagination: paginationSchema,
});

export const bulkUpdatesItemSchema = /* @__PURE__ */ v.union([
  /* @__PURE__ */ v.object({
    identifier: legalEntitySchema,
    data: updatesData,
    pagination: paginationSchema,
    message: /* @__PURE__ */ v.null(),
  }),
  /* @__PURE__ */ v.object({
    identifier: /* @__PURE__ */ v.object({ legalEntityId: /* @__PURE__ */ v.string() }),
    data: /* @__PURE__ */ v.null(),
    pagination: /* @__PURE__ */ v.null(),
    message: /* @__PURE__ */ v.string(),
  }),
]);
export type BulkUpdatesItem = v.InferOutput<typeof bulkUpdatesItemSchema>;

export const getLegalEntityUpdatesRequest = {
  params: /* @__PURE__ */ v.object({ legalEntityId: /* @__PURE__ */ v.string() }),
  query: /* @__PURE__ */ v.object(paginationQuery),
};

/**
 * One requested legal entity: an object whose `legalEntityId` is a string (anything else fails the
 * whole request, §8.1); whether the string is an id is judged per item.
 */
const legalEntityEntry = /* @__PURE__ */ jsonObject(
  { legalEntityId: /* @__PURE__ */ v.string('must be a string') },
  'an object',
);

const TOO_MANY_LEGAL_ENTITIES = `must contain at most ${MAX_LEGAL_ENTITIES} legal entities`;

export const getLegalEntityUpdatesBulkRequest = {
  body: /* @__PURE__ */ jsonObject({
    legalEntities: /* @__PURE__ */ v.pipe(
      /* @__PURE__ */ v.array(legalEntityEntry, 'must be an array of legal entities'),
      /* @__PURE__ */ v.minLength(1, 'must contain at least 1 legal entity'),
      /* @__PURE__ */ v.maxLength(MAX_LEGAL_ENTITIES, TOO_MANY_LEGAL_ENTITIES),
    ),
    limit: /* @__PURE__ */ integerField(BULK_LIMIT),
    offset: offsetField,
  }),
};
