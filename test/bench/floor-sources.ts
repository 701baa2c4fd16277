/**
 * Floor handlers the benchmark bundles (floors.ts) with the same esbuild settings as the functions:
 * for each kind, the same DynamoDB call(s) as the function it is held against, with the bare SDK and
 * nothing else. The lists' floors are in list-floors.ts; the head they share in floor-client.ts.
 */
import { CONTACTS_PROJECTION, DETAILS_PROJECTION } from '../../lib/companies/details-store';
import { FINANCIALS_PROJECTION } from '../../lib/companies/store';
import { COUNTRIES } from '../../lib/companies/identifiers';
import { MAX_ENTRIES } from '../../lib/search/search';
import { LOOKALIKES_PROJECTION } from '../../lib/lookalikes/store';
import { CLIENT } from './floor-client';
import { LIST_FLOORS } from './list-floors';

/** The kinds of floor a function is measured against: which DynamoDB call(s) it makes, and nothing else. */
export type FloorKind =
  | 'empty'
  | 'getCompany'
  | 'batchGetCompanies'
  | 'getCompanyDetails'
  | 'batchGetCompanyDetails'
  | 'getCompanyContacts'
  | 'searchIndex'
  | 'replay'
  | 'getLookalikes'
  | 'batchGetLookalikes'
  | 'getRelationships'
  | 'batchGetRelationships'
  | 'getToken'
  | 'legalEntityUpdates'
  | 'accountLists'
  | 'listCompanies'
  | 'listContacts'
  | 'addListMembers'
  | 'createStaticList';

/**
 * The company-data endpoints' floors: the item of the family the function reads (sort key), with the
 * attributes it projects (the store's own constant), so the floor moves the same bytes — one GetItem
 * for a single GET, one BatchGetItem per 100 companies for a bulk POST.
 */
const companyItemFloor = (sk: string, attributes: readonly string[] | null, bulk: boolean) => `${CLIENT}
const sk = ${JSON.stringify(sk)};
const projection = ${attributes ? `projectionOf(${JSON.stringify(attributes)})` : '{}'};
${
  bulk
    ? `const handle = async (event) => {
  const keys = bodyOf(event).companies.map((c) => companyKey(c.countryCode, c.companyNumber, sk));
  const parts = [];
  for (let i = 0; i < keys.length; i += 100) parts.push(keys.slice(i, i + 100));
  const pages = await Promise.all(
    parts.map((Keys) => client.send(new BatchGetItemCommand({ RequestItems: { [table]: { Keys, ...projection } } }))),
  );
  const items = pages.reduce((n, page) => n + page.Responses[table].length, 0);
  return { statusCode: 200, body: JSON.stringify({ items }) };
};`
    : `const handle = async (event) => {
  const { countryCode, companyNumber } = event.pathParameters;
  const out = await client.send(
    new GetItemCommand({ TableName: table, Key: companyKey(countryCode, companyNumber, sk), ...projection }),
  );
  return { statusCode: out.Item ? 200 : 404, body: JSON.stringify({ items: out.Item ? 1 : 0 }) };
};`
}
`;
/**
 * The updates endpoints' calls (lib/updates/updates.ts): the legal entity items by id (GetItem for one,
 * BatchGetItem for many), then the companies' feeds and relationships items, in parallel.
 */
const LEGAL_ENTITY_UPDATES = `${CLIENT}
const batchGet = async (keys) => {
  const parts = [];
  for (let i = 0; i < keys.length; i += 100) parts.push(keys.slice(i, i + 100));
  const pages = await Promise.all(parts.map((Keys) => client.send(new BatchGetItemCommand({ RequestItems: { [table]: { Keys } } }))));
  return pages.flatMap((page) => page.Responses[table]);
};
const handle = async (event) => {
  const ids = event.pathParameters
    ? [event.pathParameters.legalEntityId]
    : [...new Set(bodyOf(event).legalEntities.map((e) => e.legalEntityId))];
  const entityKey = (id) => ({ pk: { S: 'LEGAL_ENTITY#' + id }, sk: { S: 'LEGAL_ENTITY' } });
  const entities =
    ids.length === 1
      ? [(await client.send(new GetItemCommand({ TableName: table, Key: entityKey(ids[0]) }))).Item].filter(Boolean)
      : await batchGet(ids.map(entityKey));
  const companies = entities.map((e) => 'COMPANY#' + e.country.S + '#' + e.companyNumber.S);
  const [feeds, relationships] = await Promise.all([
    batchGet(companies.map((pk) => ({ pk: { S: pk }, sk: { S: 'UPDATES' } }))),
    batchGet(companies.map((pk) => ({ pk: { S: pk }, sk: { S: 'RELATIONSHIPS' } }))),
  ]);
  return { statusCode: 200, body: JSON.stringify({ feeds: feeds.length, relationships: relationships.length }) };
};
`;

/**
 * A name search's calls (lib/search/store.ts `findByWordPrefix`): one Query of the search index per
 * country, by the query's probe word, with its other words as the filter, the same projection and
 * bound. The floor's event names the probe and the other words (lib/search/search.ts `nameProbe`, as
 * the function finds them), so it computes only the keys.
 */
const SEARCH_INDEX = `${CLIENT}
const countries = ${JSON.stringify(COUNTRIES)};
const handle = async (event) => {
  const { probe, others } = event.queryStringParameters;
  if (!probe) return { statusCode: 200, body: JSON.stringify({ items: 0 }) };
  const values = { ':prefix': { S: probe } };
  const filter = (others ? others.split(' ') : []).map((word, i) => {
    values[':w' + i] = { S: word };
    values[':sw' + i] = { S: ' ' + word };
    return '(begins_with(#words, :w' + i + ') OR contains(#words, :sw' + i + '))';
  });
  const pages = await Promise.all(
    countries.map((country) =>
      client.send(
        new QueryCommand({
          TableName: table,
          KeyConditionExpression: '#pk = :pk AND begins_with(#sk, :prefix)',
          ...(filter.length > 0 ? { FilterExpression: filter.join(' AND ') } : {}),
          ExpressionAttributeNames: { '#pk': 'pk', '#sk': 'sk', '#name': 'name', '#place': 'place', '#words': 'words' },
          ExpressionAttributeValues: { ...values, ':pk': { S: 'SEARCH#' + country + '#' + probe.charAt(0) } },
          ProjectionExpression: '#pk, #sk, #name, #place, #words',
          Limit: ${MAX_ENTRIES},
        }),
      ),
    ),
  );
  return { statusCode: 200, body: JSON.stringify({ items: pages.reduce((n, page) => n + page.Items.length, 0) }) };
};
`;

/** One DynamoDB call a function made, as the SDK's low-level command took it (test/bench/cases.ts records them). */
export interface RecordedCall {
  command: string;
  input: unknown;
}

/**
 * The calls a function made for this very event (its body: \`{ calls }\`, recorded beforehand), sent again
 * one after another: for a function whose calls depend on more than a floor can compute (the match).
 */
const REPLAY = `${CLIENT}
const commands = { GetItemCommand, BatchGetItemCommand, QueryCommand };
const handle = async (event) => {
  let items = 0;
  for (const { command, input } of bodyOf(event).calls) {
    const out = await client.send(new commands[command](input));
    items += out.Items ? out.Items.length : out.Responses ? Object.values(out.Responses).flat().length : out.Item ? 1 : 0;
  }
  return { statusCode: 200, body: JSON.stringify({ items }) };
};
`;

/**
 * Floor handlers (`handle`): the same DynamoDB call(s) as the function, with the bare SDK and nothing
 * else. `floorSource` (floors.ts) makes the bundle's source of one, with the public packages its
 * function loads.
 */
export const FLOOR_SOURCES: Record<FloorKind, string> = {
  empty: `const handle = async () => ({ statusCode: 200, body: '{}' });\n`,
  getCompany: companyItemFloor('COMPANY', FINANCIALS_PROJECTION, false),
  batchGetCompanies: companyItemFloor('COMPANY', FINANCIALS_PROJECTION, true),
  // Details and contacts read the same company item with other attributes (details: the address,
  // activities and the figures kept for them; contacts: the contacts): their floors project what they project.
  getCompanyDetails: companyItemFloor('COMPANY', DETAILS_PROJECTION, false),
  batchGetCompanyDetails: companyItemFloor('COMPANY', DETAILS_PROJECTION, true),
  getCompanyContacts: companyItemFloor('COMPANY', CONTACTS_PROJECTION, false),
  searchIndex: SEARCH_INDEX,
  replay: REPLAY,
  getLookalikes: companyItemFloor('LOOKALIKES', LOOKALIKES_PROJECTION, false),
  batchGetLookalikes: companyItemFloor('LOOKALIKES', LOOKALIKES_PROJECTION, true),
  getRelationships: companyItemFloor('RELATIONSHIPS', null, false),
  batchGetRelationships: companyItemFloor('RELATIONSHIPS', null, true),
  legalEntityUpdates: LEGAL_ENTITY_UPDATES,
  ...LIST_FLOORS,
  getToken: `${CLIENT}
import { createHash } from 'node:crypto';
const handle = async (event) => {
  const token = event.authorizationToken.replace(/^Bearer /, '');
  const hash = createHash('sha256').update(token).digest('hex');
  const out = await client.send(new GetItemCommand({ TableName: table, Key: { pk: { S: 'TOKEN#' + hash }, sk: { S: 'TOKEN' } } }));
  return { statusCode: out.Item ? 200 : 401, body: '{}' };
};
`,
};
