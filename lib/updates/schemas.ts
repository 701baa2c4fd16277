/**
 * Update schemas (contract §8.1): the requests of the single and bulk endpoints and their answers. A
 * legal entity shows as in §6.4 (`legalEntityId`, `countryCode`, `name`, `isPrimary`).
 */
import * as v from 'valibot';
import { integerField, jsonObject, PAGE, paginationQuery, paginationSchema } from '../http/schemas';
import { legalEntitySchema } from '../legal-entities/schemas';
import { UPDATE_TYPES } from './derive';

/** Contract §1.1, §9: bulk updates take `limit` 1..100 (default 4), and entities × limit ≤ 500. */
export const BULK_UPDATES = {
  legalEntities: 100,
  limit: { min: 1, max: 100, default: PAGE.limit.default },
  offset: PAGE.offset,
  /** `legalEntities.length × limit` at most. */
  updates: 500,
} as const;

export const updateSchema = v.object({
  id: v.string(),
  type: v.picklist(UPDATE_TYPES),
  title: v.string(),
  time: v.string(),
  sourceUrl: v.null(),
  sourceType: v.null(),
  status: v.literal('ACTIVE'),
});
export type UpdateAnswer = v.InferOutput<typeof updateSchema>;

const updatesData = v.object({ updates: v.array(updateSchema) });

export const legalEntityUpdatesSchema = v.object({
  identifier: legalEntitySchema,
  data: updatesData,
  pagination: paginationSchema,
});

export const bulkUpdatesItemSchema = v.union([
  v.object({
    identifier: legalEntitySchema,
    data: updatesData,
    pagination: paginationSchema,
    message: v.null(),
  }),
  v.object({
    identifier: v.object({ legalEntityId: v.string() }),
    data: v.null(),
    pagination: v.null(),
    message: v.string(),
  }),
]);
export type BulkUpdatesItem = v.InferOutput<typeof bulkUpdatesItemSchema>;

export const getLegalEntityUpdatesRequest = {
  params: v.object({ legalEntityId: v.string() }),
  query: v.object(paginationQuery),
};

/**
 * One requested legal entity: an object whose `legalEntityId` is a string (anything else fails the
 * whole request, §8.1); whether the string is an id is judged per item.
 */
const legalEntityEntry = jsonObject({ legalEntityId: v.string('must be a string') }, 'an object');

const { limit, offset } = BULK_UPDATES;

export const getLegalEntityUpdatesBulkRequest = {
  body: jsonObject({
    legalEntities: v.pipe(
      v.array(legalEntityEntry, 'must be an array of legal entities'),
      v.minLength(1, 'must contain at least 1 legal entity'),
      v.maxLength(
        BULK_UPDATES.legalEntities,
        `must contain at most ${BULK_UPDATES.legalEntities} legal entities`,
      ),
    ),
    limit: integerField(limit.min, limit.max, limit.default),
    offset: integerField(offset.min, offset.max, offset.default),
  }),
};
