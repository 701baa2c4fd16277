/**
 * The lists' floors: the same DynamoDB calls as the list functions, in the same sequence, with the bare
 * SDK (the floor kinds accountLists, listCompanies, listContacts, createStaticList, addListMembers of
 * floor-sources.ts).
 */
import { DEFAULT_COLUMNS } from '../../lib/lists/manage';
import { DRAWN_LIST_IDS, LIST_COUNT_ATTRIBUTE, MAX_LISTS_PER_ACCOUNT } from '../../lib/lists/store/list-ids';
import { CLIENT } from './floor-client';

/**
 * The lists' pages' floors (lib/lists/store/pages.ts `getOrderSlice`, `getContactSlice`): the same round trips
 * as the functions, in the same sequence, with the bare SDK — the list item by key (its counters and
 * type), then one Query of the order from the front (a state's partition in the table, every state's in
 * gsi1; for contacts only companies that have some), then one BatchGetItem of the page's companies. What
 * the floor computes between the calls is only what it needs to make the next one.
 */
const LISTS = `
const caller = (event) => event.requestContext.authorizer.accountId;
const getList = (account, id) =>
  client.send(new GetItemCommand({ TableName: table, Key: { pk: { S: 'ACCOUNT#' + account }, sk: { S: 'LIST#' + id } } }));
// view: a state (the table partition) or ALL (gsi1); until(items): whether enough has been read.
async function order(account, id, view, limit, contactsOnly, until) {
  const all = view === 'ALL';
  const items = [];
  let ExclusiveStartKey;
  do {
    const page = await client.send(
      new QueryCommand({
        TableName: table,
        ...(all ? { IndexName: 'gsi1' } : {}),
        KeyConditionExpression: '#pk = :pk',
        ExpressionAttributeNames: { '#pk': all ? 'gsi1pk' : 'pk', '#sk': 'sk', '#contacts': 'contacts', ...(contactsOnly && all ? { '#state': 'state' } : {}) },
        ExpressionAttributeValues: {
          ':pk': { S: 'ACCOUNT#' + account + '#LIST#' + id + '#' + view },
          ...(contactsOnly ? { ':zero': { N: '0' } } : {}),
          ...(contactsOnly && all ? { ':archived': { S: 'ARCHIVED' } } : {}),
        },
        ProjectionExpression: '#sk, #contacts',
        ...(contactsOnly ? { FilterExpression: all ? '#contacts > :zero AND #state <> :archived' : '#contacts > :zero' } : {}),
        Limit: limit,
        ExclusiveStartKey,
      }),
    );
    items.push(...page.Items);
    ExclusiveStartKey = page.LastEvaluatedKey;
  } while (ExclusiveStartKey && !until(items));
  return items;
}
const companyOfOrder = (item) => {
  const [, country, number] = item.sk.S.split('#');
  return companyKey(country, number);
};
async function companies(keys, attributes) {
  if (keys.length === 0) return [];
  const page = await client.send(new BatchGetItemCommand({ RequestItems: { [table]: { Keys: keys, ...projectionOf(attributes) } } }));
  return page.Responses[table];
}
const page = (event) => {
  const query = event.queryStringParameters || {};
  return { offset: Number(query.offset || 0), limit: Number(query.limit || 4) };
};
const count = (item, name) => Number(item[name] ? item[name].N : 0);
`;

/** The list functions' floor handlers (`handle`), by floor kind. */
export const LIST_FLOORS = {
  // The overview (lib/lists/store/lists.ts getAccountLists): every list item of the account, all pages.
  accountLists: `${CLIENT}
const handle = async (event) => {
  const account = event.requestContext.authorizer.accountId;
  const items = [];
  let ExclusiveStartKey;
  do {
    const page = await client.send(
      new QueryCommand({
        TableName: table,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
        ExpressionAttributeValues: { ':pk': { S: 'ACCOUNT#' + account }, ':prefix': { S: 'LIST#' } },
        ExclusiveStartKey,
      }),
    );
    items.push(...page.Items);
    ExclusiveStartKey = page.LastEvaluatedKey;
  } while (ExclusiveStartKey);
  return { statusCode: 200, body: JSON.stringify({ items: items.length }) };
};
`,
  // A page at offset 0 (the bench's): the first offset + limit order items of every state (type ALL).
  listCompanies: `${CLIENT}${LISTS}
const handle = async (event) => {
  const account = caller(event);
  const id = event.pathParameters.id;
  const { offset, limit } = page(event);
  const list = await getList(account, id);
  if (!list.Item) return { statusCode: 404, body: '{}' };
  const total = count(list.Item, 'nNew') + count(list.Item, 'nSaved') + count(list.Item, 'nArchived');
  const end = Math.min(offset + limit, total);
  const members = end > offset ? (await order(account, id, 'ALL', end, false, (read) => read.length >= end)).slice(offset, end) : [];
  const items = await companies(members.map(companyOfOrder), ['pk', 'name', 'place']);
  return { statusCode: 200, body: JSON.stringify({ items: items.length }) };
};
`,
  // Contacts from offset 0: the order items with contacts until they cover offset + limit contacts.
  listContacts: `${CLIENT}${LISTS}
const handle = async (event) => {
  const account = caller(event);
  const id = event.pathParameters.id;
  const { offset, limit } = page(event);
  const list = await getList(account, id);
  if (!list.Item) return { statusCode: 404, body: '{}' };
  const end = Math.min(offset + limit, count(list.Item, 'nContacts'));
  const sum = (items) => items.reduce((n, item) => n + count(item, 'contacts'), 0);
  const view = list.Item.type.S === 'SMART' ? 'ALL' : 'SAVED';
  const read = end > offset ? await order(account, id, view, end, true, (items) => sum(items) >= end) : [];
  const covering = [];
  let seen = 0;
  for (const member of read) {
    if (seen >= end) break;
    if (seen + count(member, 'contacts') > offset) covering.push(member);
    seen += count(member, 'contacts');
  }
  const items = await companies(covering.map(companyOfOrder), ['pk', 'name', 'place', 'contacts']);
  return { statusCode: 200, body: JSON.stringify({ items: items.length }) };
};
`,
  // A static list created as lib/lists/store/lists.ts creates one in an account whose list count exists:
  // the count read (consistently), then one transaction: the list, its name, its id's claim, the count
  // moved (conditional puts, a bounded ADD). The same two calls, with the same items, made bare.
  createStaticList: `${CLIENT}
const { randomInt } = require('node:crypto');
const handle = async (event) => {
  const account = event.requestContext.authorizer.accountId;
  const { name, type } = bodyOf(event);
  const countKey = { pk: { S: 'ACCOUNT#' + account }, sk: { S: 'LIST_COUNT' } };
  const count = await client.send(new GetItemCommand({ TableName: table, Key: countKey, ConsistentRead: true }));
  if (!count.Item) return { statusCode: 500, body: '{"message":"no list count"}' };
  const id = randomInt(${DRAWN_LIST_IDS.min}, ${DRAWN_LIST_IDS.max + 1});
  const now = new Date().toISOString();
  const put = (Item) => ({ Put: { TableName: table, Item, ConditionExpression: 'attribute_not_exists(pk)' } });
  await client.send(
    new TransactWriteItemsCommand({
      TransactItems: [
        put({
          pk: { S: 'ACCOUNT#' + account }, sk: { S: 'LIST#' + id }, entity: { S: 'List' }, accountId: { S: account },
          id: { N: String(id) }, name: { S: name }, type: { S: type },
          columns: { L: ${JSON.stringify(DEFAULT_COLUMNS)}.map((c) => ({ S: c })) },
          shared: { BOOL: false }, notificationsEnabled: { BOOL: false },
          createdBy: { S: event.requestContext.authorizer.userEmail }, createdAt: { S: now }, updatedAt: { S: now },
          nNew: { N: '0' }, nSaved: { N: '0' }, nArchived: { N: '0' }, nContacts: { N: '0' },
        }),
        put({ pk: { S: 'ACCOUNT#' + account }, sk: { S: 'LISTNAME#' + name.trim().toLowerCase() }, entity: { S: 'ListName' }, listId: { N: String(id) } }),
        put({ pk: { S: 'LIST_ID#' + id }, sk: { S: 'LIST_ID' }, entity: { S: 'ListIdClaim' } }),
        {
          Update: {
            TableName: table, Key: countKey, UpdateExpression: 'ADD #n :one', ConditionExpression: '#n < :max',
            ExpressionAttributeNames: { '#n': '${LIST_COUNT_ATTRIBUTE}' },
            ExpressionAttributeValues: { ':one': { N: '1' }, ':max': { N: '${MAX_LISTS_PER_ACCOUNT}' } },
          },
        },
      ],
    }),
  );
  return { statusCode: 201, body: JSON.stringify({ id }) };
};
`,
  // PUT /v1/lists/{id}/companies by number: one BatchGetItem of the companies (name, place, contacts),
  // then the members in conditional transactions of 49 (member, order item, the list's counters),
  // dropping a member whose condition says it is there already and trying the rest again.
  addListMembers: `${CLIENT}
const handle = async (event) => {
  const account = event.requestContext.authorizer.accountId;
  const me = event.requestContext.authorizer.userEmail;
  const listId = event.pathParameters.id;
  const keys = bodyOf(event).companies.map((c) => companyKey(c.country, c.companyNumber));
  const out = await client.send(
    new BatchGetItemCommand({
      RequestItems: {
        [table]: {
          Keys: keys,
          ProjectionExpression: '#pk, #name, #place, #contacts',
          ExpressionAttributeNames: { '#pk': 'pk', '#name': 'name', '#place': 'place', '#contacts': 'contacts' },
        },
      },
    }),
  );
  const now = new Date();
  const inverted = String(999999999999999 - now.getTime()).padStart(15, '0');
  let pending = out.Responses[table].map((item) => ({
    ref: item.pk.S.slice('COMPANY#'.length),
    contacts: item.contacts ? JSON.parse(item.contacts.S).length : 0,
  }));
  let added = 0;
  while (pending.length > 0) {
    const part = pending.slice(0, 49);
    const list = 'ACCOUNT#' + account + '#LIST#' + listId;
    try {
      await client.send(
        new TransactWriteItemsCommand({
          TransactItems: [
            ...part.flatMap((m) => [
              {
                Put: {
                  TableName: table,
                  Item: {
                    pk: { S: list }, sk: { S: 'COMPANY#' + m.ref }, gsi1pk: { S: 'LISTED#' + m.ref }, gsi1sk: { S: list },
                    entity: { S: 'ListMember' }, state: { S: 'SAVED' }, matchedSince: { S: now.toISOString() },
                    contacts: { N: String(m.contacts) },
                  },
                  ConditionExpression: 'attribute_not_exists(pk)',
                },
              },
              {
                Put: {
                  TableName: table,
                  Item: {
                    pk: { S: list + '#SAVED' }, sk: { S: inverted + '#' + m.ref },
                    gsi1pk: { S: list + '#ALL' }, gsi1sk: { S: inverted + '#' + m.ref },
                    entity: { S: 'ListOrder' }, state: { S: 'SAVED' }, contacts: { N: String(m.contacts) },
                  },
                },
              },
            ]),
            {
              Update: {
                TableName: table,
                Key: { pk: { S: 'ACCOUNT#' + account }, sk: { S: 'LIST#' + listId } },
                UpdateExpression: 'ADD nSaved :n, nContacts :c SET updatedAt = :now',
                ConditionExpression: 'attribute_exists(pk) AND #type = :type AND (#shared = :true OR #createdBy = :me)',
                ExpressionAttributeNames: { '#type': 'type', '#shared': 'shared', '#createdBy': 'createdBy' },
                ExpressionAttributeValues: {
                  ':n': { N: String(part.length) },
                  ':c': { N: String(part.reduce((n, m) => n + m.contacts, 0)) },
                  ':now': { S: now.toISOString() }, ':type': { S: 'STATIC' }, ':true': { BOOL: true }, ':me': { S: me },
                },
              },
            },
          ],
        }),
      );
      added += part.length;
      pending = pending.slice(49);
    } catch (error) {
      const reasons = (error.CancellationReasons || []).map((r) => r.Code);
      const present = new Set(part.filter((_, i) => reasons[2 * i] === 'ConditionalCheckFailed').map((m) => m.ref));
      if (present.size === 0) throw error;
      pending = pending.filter((m) => !present.has(m.ref));
    }
  }
  return { statusCode: 200, body: JSON.stringify({ added }) };
};
`,
};
