/**
 * What `npm run bench` calls each function with: ONE case per route id (plus the authorizer), and
 * nothing else to edit when a route is added. `BENCH_CASES` is checked against the route table
 * (`satisfies Record<FunctionId, BenchCase>`): a route without a case, or a case without a route,
 * does not typecheck.
 *
 * A case says:
 * - `label`   how the tables name it;
 * - `floor`   the kind of floor it is held against (floor-sources.ts, list-floors.ts): the closest DynamoDB call(s) made with
 *             the bare SDK and nothing else (`empty` for a function that calls no storage). The floor is
 *             built the same way as the function and loads the same public packages its bundle loads
 *             when it loads (the SDK clients, middy's core: bundles.ts `loadedPackages`). It runs in the
 *             same round, right before or after the function;
 * - `budget`  which warm budget applies: `single` (one company, 1 round trip), `bulk` (100 companies,
 *             ≤ 2 round trips), `updates` (≤ 3), `search` (≤ 11), `authorizer`; each is also held to CPU
 *             per warm call ≤ 1.1 × the floor's. `null`: figures only. Every function is held to the cold
 *             budget (figures.ts, `BUDGET`), but one that serves a `document`;
 * - `document` (optional) it hands out a document generated at build time (the OpenAPI document, the
 *             reference page): its bundle is mostly the document, and its cold start is its own (a
 *             function of its own, called by readers of the docs): figures only;
 * - `events`  the events, used in turn, built from the bench data (`BenchData`: the demo companies,
 *             lists 1..7 and tokens on a fresh table);
 * - `floorEvents` (optional) the events for the floor, when the function's own cannot drive it (the
 *             getCompany floor needs a company in the path); the function's events otherwise;
 * - `setup`   (optional) writes what the case needs beyond the demo data, once, before any run.
 *
 * Example, a new route that reads one legal entity's updates (one Query, no company in its path):
 *
 *   getLegalEntityUpdates: {
 *     label: 'legal entity updates GET',
 *     floor: 'getCompany',
 *     budget: 'single',
 *     events: () => [request('getLegalEntityUpdates', { pathParameters: { legalEntityId: '…' } })],
 *     floorEvents: companyFloorEvents,
 *     setup: async () => { … write the updates it reads … },
 *   },
 *
 * The shape (`BenchCase`) and the data (`BenchData`) are in bench-case.ts; the events the cases are
 * built of (`request`, `singleGets`, `bulkPosts`, `companyFloorEvents`, …) in case-events.ts; the
 * webhook endpoints' cases in webhook-cases.ts.
 */
import { lambdaContext, ALICE } from '../support/events';
import { nameWords } from '../../lib/companies/normalise';
import { nameProbe } from '../../lib/search/search';
import type { RecordedCall } from './floor-sources';
import { BULK_SIZE, type BenchCase, type FunctionId } from './bench-case';
import {
  benchCaller,
  bulkPosts,
  bulkSets,
  companyFloorEvents,
  legalEntityIdOf,
  matchEvents,
  request,
  searchQueries,
  singleGets,
} from './case-events';
import { writeListPool } from './list-pool';
import { ownEndpointCase, webhookCase } from './webhook-cases';

/** The DynamoDB calls (command and low-level input) the match made for each of its events. */
const recordedMatchCalls: RecordedCall[][] = [];

export const BENCH_CASES = {
  getHealth: {
    label: 'health GET',
    floor: 'empty',
    // Cold: against an empty handler run in middy's core. A warm ratio to it (0.01 ms against 0.00) says nothing.
    budget: null,
    events: () => [request('getHealth', { caller: null })],
  },
  // The published contract: a file generated at build time, handed out; no storage.
  getOpenApi: {
    label: 'OpenAPI document GET',
    floor: 'empty',
    budget: null,
    events: () => [request('getOpenApi', { caller: null })],
    document: true,
  },
  getDocs: {
    label: 'reference page GET',
    floor: 'empty',
    budget: null,
    events: () => [request('getDocs', { caller: null })],
    document: true,
  },
  getCompanyFinancials: {
    label: 'financials single GET',
    floor: 'getCompany',
    budget: 'single',
    events: ({ companies }) => singleGets('getCompanyFinancials', companies),
  },
  getCompanyFinancialsBulk: {
    label: `financials bulk POST (${BULK_SIZE} companies, limit 4)`,
    floor: 'batchGetCompanies',
    budget: 'bulk',
    events: ({ companies }) => bulkPosts('getCompanyFinancialsBulk', companies, { limit: 4 }),
  },
  // (ext) §6.5: the company item's profile and the figures details show (one GetItem / one
  // BatchGetItem); the floors read the same item with the same projection.
  getCompany: {
    label: 'company details single GET',
    floor: 'getCompanyDetails',
    budget: 'single',
    events: ({ companies }) => singleGets('getCompany', companies),
  },
  getCompanyBulk: {
    label: `company details bulk POST (${BULK_SIZE} companies)`,
    floor: 'batchGetCompanyDetails',
    budget: 'bulk',
    events: ({ companies }) => bulkPosts('getCompanyBulk', companies),
  },
  getCompanyContacts: {
    label: 'company contacts single GET',
    floor: 'getCompanyContacts',
    budget: 'single',
    events: ({ companies }) => singleGets('getCompanyContacts', companies),
  },
  // (ext) §6.5 search: a name's first word and the start of its second, as a user types them, over
  // the bench's demo companies: one Query per country (3) of the search index; the floor makes the
  // same three Queries (same probe word, filter, projection and bound).
  searchCompanies: {
    label: 'company search GET (3 countries)',
    floor: 'searchIndex',
    budget: 'search',
    events: () => searchQueries().map((q) => request('searchCompanies', { query: { q } })),
    floorEvents: () =>
      searchQueries().map((q) => {
        const words = nameWords(q);
        const { probe, others } = words.length > 0 ? nameProbe(words) : { probe: '', others: [] };
        return request('searchCompanies', { query: { probe, others: others.join(' ') } });
      }),
  },
  // (ext) §6.5 match: 100 entries of a name and a place each (the commonest CRM export), so every entry
  // takes the search-index probes. Its floor makes the very DynamoDB calls the match made for the same
  // event (recorded by the setup, replayed one after another by the bare SDK); it also parses them from
  // its event (about 27 KB, some 1 % of its CPU), where the match parses its 100 entries.
  matchCompanies: {
    label: `company match POST (${BULK_SIZE} entries, name and place)`,
    floor: 'replay',
    budget: null,
    events: matchEvents,
    floorEvents: () => recordedMatchCalls.map((calls) => request('matchCompanies', { body: { calls } })),
    setup: async () => {
      const { handler } = await import('../../functions/match-companies');
      const { recordCalls } = await import('../support/dynamodb-calls');
      for (const event of matchEvents()) {
        const { calls } = await recordCalls(() => handler(structuredClone(event), lambdaContext));
        recordedMatchCalls.push(calls.map(({ command, input }) => ({ command: `${command}Command`, input })));
      }
    },
  },
  // Each reads its own item family (one GetItem / one BatchGetItem); its floor reads the same items.
  getCompanyLookalikes: {
    label: 'lookalikes single GET',
    floor: 'getLookalikes',
    budget: 'single',
    events: ({ companies }) => singleGets('getCompanyLookalikes', companies),
  },
  getCompanyLookalikesBulk: {
    label: `lookalikes bulk POST (${BULK_SIZE} companies, limit 10)`,
    floor: 'batchGetLookalikes',
    budget: 'bulk',
    events: ({ companies }) => bulkPosts('getCompanyLookalikesBulk', companies, { limit: 10 }),
  },
  getCompanyRelationships: {
    label: 'relationships single GET',
    floor: 'getRelationships',
    budget: 'single',
    events: ({ companies }) => singleGets('getCompanyRelationships', companies),
  },
  getCompanyRelationshipsBulk: {
    label: `relationships bulk POST (${BULK_SIZE} companies)`,
    floor: 'batchGetRelationships',
    budget: 'bulk',
    events: ({ companies }) => bulkPosts('getCompanyRelationshipsBulk', companies),
  },
  getCompanyLegalEntities: {
    label: 'legal entities single GET',
    floor: 'getRelationships',
    budget: 'single',
    events: ({ companies }) => singleGets('getCompanyLegalEntities', companies),
  },
  // Lists (§7): the overview is one Query (floor: one GetItem); a page and the PUT are held against
  // floors making the same calls in the same sequence (list-floors.ts, LIST_FLOORS).
  // Every list of the account in one Query (about 300 here: the DELETE case's pool is Alice's too); the
  // floor makes the same Query.
  getLists: {
    label: 'lists GET (overview)',
    floor: 'accountLists',
    budget: null,
    events: () => [request('getLists', { query: { limit: '10' } })],
  },
  getListCompanies: {
    label: 'list companies GET (lists 1 and 4)',
    floor: 'listCompanies',
    budget: null,
    events: () => [
      request('getListCompanies', { pathParameters: { id: '1' } }),
      request('getListCompanies', { pathParameters: { id: '4' }, query: { limit: '100' } }),
    ],
  },
  getListContacts: {
    label: 'list contacts GET (list 1)',
    floor: 'listContacts',
    budget: null,
    events: () => [request('getListContacts', { pathParameters: { id: '1' } })],
  },
  // 100 entries a call into Alice's private list (id 2); after the first calls every company is there.
  // The floor makes the same calls with the bare SDK: a BatchGetItem, then conditional transactions.
  addListCompanies: {
    label: `list companies PUT (${BULK_SIZE} entries)`,
    floor: 'addListMembers',
    budget: null,
    events: ({ companies }) =>
      bulkSets(companies).map((set) =>
        request('addListCompanies', {
          pathParameters: { id: '2' },
          body: { companies: set.map((c) => ({ country: c.countryCode, companyNumber: c.companyNumber })) },
        }),
      ),
  },
  // Managing lists (§7.6): one GetItem of the list, then (writes) one transaction; a move also reads its
  // members in one BatchGetItem. The nearest floors are one GetItem and one BatchGetItem; the create's
  // makes its very calls (below).
  getList: {
    label: 'list GET (list 1)',
    floor: 'getCompany',
    budget: null,
    events: () => [request('getList', { pathParameters: { id: '1' } })],
    floorEvents: companyFloorEvents,
  },
  // A new name every call, each in an account of its own: an account holds at most 200 lists. The
  // accounts' list counts exist before the run, as an account's do after its first list. Its floor
  // makes the same two calls (the count read, the create's transaction) with the same items, bare, from
  // the same event (a fresh account each call, function and floor alike).
  createList: {
    label: 'list POST (static)',
    floor: 'createStaticList',
    budget: null,
    events: () => [
      request('createList', {
        body: { name: 'Bench list {{seq}}', type: 'STATIC' },
        caller: { ...benchCaller, accountId: 'bench-{{seq}}' },
      }),
    ],
    setup: async ({ callsPerFunction }) => {
      const { ensureListCount } = await import('../../lib/lists/store/list-ids');
      for (let seq = 0; seq < 2 * callsPerFunction + 10; seq++) await ensureListCount(`bench-${seq}`);
    },
  },
  // Two column sets in turn, so every call changes the list.
  updateList: {
    label: 'list PATCH (list 2)',
    floor: 'getCompany',
    budget: null,
    events: () =>
      [['country', 'place'], ['country']].map((columns) =>
        request('updateList', { pathParameters: { id: '2' }, body: { columns } }),
      ),
    floorEvents: companyFloorEvents,
  },
  // A list of its own each call, from the pool the setup made, each in an account named after its id (an
  // account holds at most 200 lists).
  deleteList: {
    label: 'list DELETE',
    floor: 'getCompany',
    budget: null,
    events: () => [
      request('deleteList', {
        pathParameters: { id: '{{pooled}}' },
        caller: { ...benchCaller, accountId: 'pool-{{pooled}}' },
      }),
    ],
    floorEvents: companyFloorEvents,
    setup: writeListPool,
  },
  // One company of demo smart list 4 moved to ARCHIVED and back, in turn.
  moveListCompanies: {
    label: 'list companies PATCH (a state move)',
    floor: 'batchGetCompanies',
    budget: null,
    events: ({ smartListCompany }) =>
      (['ARCHIVED', 'SAVED'] as const).map((state) =>
        request('moveListCompanies', {
          pathParameters: { id: '4' },
          body: { companies: [{ ...smartListCompany, state }] },
        }),
      ),
    floorEvents: ({ companies }) => bulkPosts('getCompanyFinancialsBulk', companies),
  },
  // Updates (§8): legal entity ids (GetItem / BatchGetItem), then feeds ∥ relationships items; the
  // floor makes the same calls. Ids as the import assigned them (300 entities do not collide).
  getLegalEntityUpdates: {
    label: 'legal entity updates single GET',
    floor: 'legalEntityUpdates',
    budget: null,
    events: ({ companies }) =>
      companies
        .slice(0, 50)
        .map((c) =>
          request('getLegalEntityUpdates', { pathParameters: { legalEntityId: legalEntityIdOf(c) } }),
        ),
  },
  getLegalEntityUpdatesBulk: {
    label: `legal entity updates bulk POST (${BULK_SIZE} entities, limit 5)`,
    floor: 'legalEntityUpdates',
    budget: 'updates',
    events: ({ companies }) =>
      bulkSets(companies).map((set) =>
        request('getLegalEntityUpdatesBulk', {
          body: { legalEntities: set.map((c) => ({ legalEntityId: legalEntityIdOf(c) })), limit: 5 },
        }),
      ),
  },
  // The account's plan item (one GetItem); today's count is the gateway's, in memory locally.
  getUsage: {
    label: 'usage GET',
    floor: 'getCompany',
    budget: null,
    events: () => [request('getUsage')],
    floorEvents: companyFloorEvents,
  },
  getEvents: {
    label: 'events GET (the feed of an account without events)',
    floor: 'getCompany',
    budget: null,
    floorEvents: companyFloorEvents,
    events: () => [request('getEvents', { query: { limit: '100' } })],
  },
  createWebhook: {
    label: 'webhook POST (an account of its own per call: at most 5 each)',
    floor: 'getCompany',
    budget: null,
    floorEvents: companyFloorEvents,
    events: () => [
      request('createWebhook', {
        body: { url: 'http://127.0.0.1:9/hook' },
        caller: { ...ALICE, accountId: 'bench-new-{{seq}}' },
      }),
    ],
  },
  getWebhooks: webhookCase('getWebhooks', 'webhooks GET'),
  getWebhook: webhookCase('getWebhook', 'webhook GET'),
  updateWebhook: webhookCase('updateWebhook', 'webhook PATCH (description)', { description: 'Bench' }),
  rotateWebhookSecret: webhookCase('rotateWebhookSecret', 'webhook POST rotate-secret'),
  // §12: one test a minute per endpoint, so each call tests an endpoint of its own.
  testWebhook: ownEndpointCase(
    'testWebhook',
    'webhook POST test (an account of its own per call)',
    'bench-test',
  ),
  getWebhookDeliveries: webhookCase('getWebhookDeliveries', 'webhook deliveries GET'),
  deleteWebhook: ownEndpointCase(
    'deleteWebhook',
    'webhook DELETE (an account of its own per call)',
    'bench-del',
  ),
  authorizer: {
    label: 'authorizer (TOKEN)',
    floor: 'getToken',
    budget: 'authorizer',
    events: ({ token }) => [
      {
        type: 'TOKEN',
        authorizationToken: `Bearer ${token}`,
        methodArn: 'arn:aws:execute-api:local:000000000000:local/local/GET/v1/x',
      },
    ],
  },
} satisfies Record<FunctionId, BenchCase>;
