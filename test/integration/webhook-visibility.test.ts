/**
 * Events follow list visibility (contract §12, §7.1), judged when an event is read or sent, on DynamoDB
 * Local with receivers on 127.0.0.1: a user's feed and an endpoint (by the user who created it) show
 * only the lists that user sees, and leave out an event none of whose lists it sees; an endpoint with no
 * recorded creator sees shared lists only; a list made private stops its events from reaching the
 * endpoints of users who no longer see it; a retry of an event no longer visible is dropped; an
 * endpoint pointed elsewhere by another user sends what that user sees.
 */
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { CompanyRecordInput } from '../../lib/companies/record';
import type { CompanyUpdateEvent } from '../../lib/events/event';
import { getEvents } from '../../lib/events/feed';
import { addCompanies } from '../../lib/lists/add-companies';
import { createOneList, updateOneList } from '../../lib/lists/manage';
import { dynamodb, tableName } from '../../lib/storage/client';
import * as keys from '../../lib/storage/keys';
import type { Caller } from '../../lib/tokens/caller';
import { SCOPES } from '../../lib/tokens/scopes';
import { getDeliveries } from '../../lib/webhooks/deliveries';
import { deliverAll, queueNewEvents } from '../../lib/webhooks/deliver';
import type { DueJob } from '../../lib/webhooks/job';
import { takeDueDeliveries } from '../../lib/webhooks/queue';
import { createWebhook, updateOneWebhook } from '../../lib/webhooks/webhooks';
import { bareCompany, importRecords, withPeriod } from '../support/records';
import { deliverUntilQuiet, LOCAL_RECEIVERS } from '../support/webhook-deliveries';
import { useFreshTable } from '../support/table';

useFreshTable();
jest.setTimeout(120_000);
process.env['WEBHOOK_RETRY_SCALE'] = '0.00005';

const ALICE: Caller = { accountId: 'seen', userEmail: 'alice@seen.example', scopes: [...SCOPES] };
const BOB: Caller = { ...ALICE, userEmail: 'bob@seen.example' };

const servers: http.Server[] = [];
afterAll(async () => {
  for (const server of servers) {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
});

/** A receiver on 127.0.0.1 keeping the events it was sent; it answers `status` (204 by default). */
async function receiver() {
  const events: CompanyUpdateEvent[] = [];
  const state = { status: 204 };
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (c: Buffer) => chunks.push(c));
    request.on('end', () => {
      events.push(JSON.parse(Buffer.concat(chunks).toString('utf8')) as CompanyUpdateEvent);
      response.writeHead(state.status).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  servers.push(server);
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, events, state };
}

async function list(caller: Caller, name: string, shared: boolean, records: CompanyRecordInput[]) {
  const { id } = (
    await createOneList(caller, { name, type: 'STATIC', shared, notifications: { enabled: true } })
  ).body;
  await addCompanies(
    caller,
    id,
    records.map((r) => ({ country: r.country, companyNumber: r.companyNumber })),
  );
  return id;
}

const drain = () => deliverUntilQuiet(10);

const feed = async (caller: Caller) =>
  (JSON.parse((await getEvents(caller, { limit: 500 })).text) as { data: CompanyUpdateEvent[] }).data;

const feedPage = async (caller: Caller, after: string | undefined) =>
  JSON.parse((await getEvents(caller, { after, limit: 1 })).text) as {
    data: CompanyUpdateEvent[];
    next: string;
  };

const byCompany = (events: CompanyUpdateEvent[]) =>
  Object.fromEntries(events.map((e) => [e.data.company.companyNumber, e.data.lists]));

const [onlyPrivate, onlyShared, both] = [
  bareCompany(75_000_001),
  bareCompany(75_000_002),
  bareCompany(75_000_003),
];
let privateList: number;
let sharedList: number;

it("shows each reader the lists it sees, and no event of lists it cannot see, in the feed and to endpoints (by their creator's eyes)", async () => {
  await importRecords([onlyPrivate, onlyShared, both]);
  privateList = await list(ALICE, "Alice's own", false, [onlyPrivate, both]);
  sharedList = await list(ALICE, 'Shared with the team', true, [onlyShared, both]);
  const [alices, bobs, legacy] = [await receiver(), await receiver(), await receiver()];
  await createWebhook(ALICE, { url: alices.url }, LOCAL_RECEIVERS);
  await createWebhook(BOB, { url: bobs.url }, LOCAL_RECEIVERS);
  const { body: old } = await createWebhook(ALICE, { url: legacy.url }, LOCAL_RECEIVERS);
  // An endpoint created before endpoints recorded their creator.
  await dynamodb().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: keys.webhook(ALICE.accountId, old.id),
      UpdateExpression: 'REMOVE createdBy',
    }),
  );

  await importRecords(withPeriod([onlyPrivate, onlyShared, both], 2022));
  await drain();

  const n = (r: CompanyRecordInput) => r.companyNumber;
  const everything = {
    [n(onlyPrivate)]: [privateList],
    [n(onlyShared)]: [sharedList],
    [n(both)]: [privateList, sharedList].sort((a, b) => a - b),
  };
  const sharedOnly = { [n(onlyShared)]: [sharedList], [n(both)]: [sharedList] };
  expect(byCompany(await feed(ALICE))).toEqual(everything);
  expect(byCompany(alices.events)).toEqual(everything);
  expect(byCompany(await feed(BOB))).toEqual(sharedOnly);
  expect(byCompany(bobs.events)).toEqual(sharedOnly);
  expect(byCompany(legacy.events)).toEqual(sharedOnly);
  // Read a page at a time, the feed passes over the events Bob cannot see: none skipped, none repeated.
  const pages: CompanyUpdateEvent[] = [];
  for (let after: string | undefined, page; (page = await feedPage(BOB, after)).data.length > 0;) {
    pages.push(...page.data);
    after = page.next;
  }
  expect(pages.map((e) => e.id)).toEqual((await feed(BOB)).map((e) => e.id));
  // The same event (id) for every reader, only its `lists` cut.
  const ids = new Set((await feed(ALICE)).map((e) => e.id));
  expect(bobs.events.every((e) => ids.has(e.id))).toBe(true);
});

it('judges visibility when the event is sent: a list made private no longer reaches the others', async () => {
  await updateOneList(ALICE, sharedList, { shared: false });
  const bobs = await receiver();
  await createWebhook(BOB, { url: bobs.url }, LOCAL_RECEIVERS);

  await importRecords(withPeriod([onlyPrivate, onlyShared, both], 2023));
  await drain();

  expect(bobs.events).toEqual([]);
  expect(byCompany(await feed(BOB))).toEqual({});
  expect((await feed(ALICE)).length).toBeGreaterThan(3);
});

it('drops a retry of an event its endpoint no longer sees: no attempt, and the failed one says none is coming', async () => {
  await updateOneList(ALICE, sharedList, { shared: true });
  const bobs = await receiver();
  bobs.state.status = 500;
  const { body: endpoint } = await createWebhook(BOB, { url: bobs.url }, LOCAL_RECEIVERS);
  await importRecords(withPeriod([onlyShared], 2024));
  await queueNewEvents();
  const retries: DueJob[] = [];
  const first = await takeDueDeliveries(Date.now());
  const mine = first.filter((d) => d.job.webhookId === endpoint.id);
  expect(mine).toHaveLength(1);
  expect(
    await deliverAll(mine, { rules: LOCAL_RECEIVERS, enqueue: async (jobs) => void retries.push(...jobs) }),
  ).toEqual(['failed']);
  expect(bobs.events).toHaveLength(1);

  await updateOneList(ALICE, sharedList, { shared: false });
  expect(await deliverAll(retries, { rules: LOCAL_RECEIVERS })).toEqual(['dropped']);

  expect(bobs.events).toHaveLength(1);
  const { data } = await getDeliveries(BOB.accountId, endpoint.id, { limit: 10, offset: 0 });
  expect(data).toMatchObject([{ attempt: 1, status: 'failed', responseStatus: 500, nextAttemptAt: null }]);
});

it("sends what the user who points an endpoint elsewhere sees: another user cannot redirect someone's private events", async () => {
  const carol: Caller = { ...ALICE, accountId: 'redirected', userEmail: 'carol@redirected.example' };
  const dave: Caller = { ...carol, userEmail: 'dave@redirected.example' };
  const carols = await list(carol, "Carol's own", false, [onlyPrivate]);
  const [carolsHook, davesHook] = [await receiver(), await receiver()];
  const { body: endpoint } = await createWebhook(carol, { url: carolsHook.url }, LOCAL_RECEIVERS);
  // A description changed by another user changes nothing of what the endpoint is sent.
  await updateOneWebhook(dave, endpoint.id, { description: 'ours' }, LOCAL_RECEIVERS);
  await importRecords(withPeriod([onlyPrivate], 2025));
  await drain();
  expect(byCompany(carolsHook.events)).toEqual({ [onlyPrivate.companyNumber]: [carols] });

  await updateOneWebhook(dave, endpoint.id, { url: davesHook.url }, LOCAL_RECEIVERS);
  await importRecords(withPeriod([onlyPrivate], 2026));
  await drain();
  expect(davesHook.events).toEqual([]);
  expect(carolsHook.events).toHaveLength(1);
});
