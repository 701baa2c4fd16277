/**
 * (ext) The updates a registry's change derives (contract §8.2: NAME_CHANGED, MOVED, STOPPED) and their
 * events (§12), on DynamoDB Local through the registry import, read back through the handlers.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import type { CompanyUpdateEvent } from '../../lib/events/event';
import { getEvents } from '../../lib/events/feed';
import { addCompanies } from '../../lib/lists/add-companies';
import { createOneList } from '../../lib/lists/manage';
import type { Caller } from '../../lib/tokens/caller';
import { SCOPES } from '../../lib/tokens/scopes';
import { createWebhook } from '../../lib/webhooks/webhooks';
import { ALICE } from '../support/events';
import { ADDRESS, beNumber, figures, registry, unit, updatesOf } from '../support/registry-units';
import { deliverUntilQuiet, LOCAL_RECEIVERS } from '../support/webhook-deliveries';
import { useFreshTable } from '../support/table';

useFreshTable();
jest.setTimeout(180_000);

describe('updates from the registry (§8.2) and their events (§12)', () => {
  let cursor: string | undefined;

  it('a first import of a stopped company derives STOPPED dated its stoppedOn, nothing else of the three', async () => {
    await registry([unit(30), unit(31, { stoppedOn: '2025-06-30' })], '2026-01-10');

    expect(await updatesOf(30)).toEqual([]);
    expect(await updatesOf(31)).toEqual([
      expect.objectContaining({
        type: 'STOPPED',
        time: '2025-06-30',
        title: 'The company stopped its activities',
      }),
    ]);
    const { id } = (
      await createOneList(ALICE, {
        name: 'Watched registry',
        type: 'STATIC',
        notifications: { enabled: true },
      })
    ).body;
    await addCompanies(ALICE, id, [{ country: 'BE', companyNumber: beNumber(30) }]);
    cursor = (JSON.parse((await getEvents(ALICE, { limit: 500 })).text) as { next: string }).next;
  });

  it('a new name, address and stop derive one update each, in three languages, and events for the watched', async () => {
    const { summary } = await registry(
      [
        unit(30, {
          name: 'Registry Dertig BV',
          address: { ...ADDRESS, street: 'Veldstraat', number: '3', postalCode: '9300', place: 'Aalst' },
          place: 'Aalst',
          stoppedOn: '2026-02-01',
        }),
      ],
      '2026-02-15',
    );

    expect(summary.updates).toBe(3);
    const byType = (updates: Array<{ type: string; title: string; time: string }>) =>
      Object.fromEntries(updates.map((u) => [u.type, [u.time, u.title]]));
    expect(byType(await updatesOf(30))).toEqual({
      NAME_CHANGED: ['2026-02-15', 'Name changed from Registry 30 NV to Registry Dertig BV'],
      MOVED: ['2026-02-15', 'Registered office moved to Aalst'],
      STOPPED: ['2026-02-01', 'The company stopped its activities'],
    });
    expect(byType(await updatesOf(30, 'nl'))).toMatchObject({
      NAME_CHANGED: ['2026-02-15', 'Naam gewijzigd van Registry 30 NV naar Registry Dertig BV'],
      MOVED: ['2026-02-15', 'Maatschappelijke zetel verhuisd naar Aalst'],
      STOPPED: ['2026-02-01', 'De onderneming heeft haar activiteiten stopgezet'],
    });
    expect(byType(await updatesOf(30, 'fr'))).toMatchObject({
      NAME_CHANGED: ['2026-02-15', 'Dénomination modifiée de Registry 30 NV en Registry Dertig BV'],
      MOVED: ['2026-02-15', 'Siège social transféré à Aalst'],
      STOPPED: ['2026-02-01', "L'entreprise a cessé ses activités"],
    });
    const events = (
      JSON.parse((await getEvents(ALICE, { after: cursor, limit: 500 })).text) as {
        data: CompanyUpdateEvent[];
      }
    ).data;
    expect(events.map((e) => e.data.update.type).sort()).toEqual(['MOVED', 'NAME_CHANGED', 'STOPPED']);
    expect(events[0]!.data.company.name).toBe('Registry Dertig BV');
  });

  it('the same change again derives nothing; a spelling of the name as search reads it is no change', async () => {
    const same = await registry(
      [
        unit(30, {
          name: 'REGISTRY DERTIG bv',
          address: { ...ADDRESS, street: 'Veldstraat', number: '3', postalCode: '9300', place: 'Aalst' },
          place: 'Aalst',
          stoppedOn: '2026-02-01',
        }),
      ],
      '2026-03-01',
    );

    expect(figures(same.summary)).toMatchObject({ changed: 1 });
    expect(same.summary.updates).toBe(0);
    expect(await updatesOf(30)).toHaveLength(3);
  });
});

describe('a seat shown in another of its languages', () => {
  it('is no move; the same seat moving is', async () => {
    const fr = { street: 'Rue du Chêne', number: '16', box: null, postalCode: '1000', place: 'Bruxelles' };
    const nl = { street: 'Eikstraat', number: '16', box: null, postalCode: '1000', place: 'Brussel' };
    await registry([unit(70, { address: fr, place: 'Bruxelles' }, { addressForms: [nl, fr] })], '2026-01-10');

    const renamed = await registry(
      [unit(70, { address: nl, place: 'Brussel' }, { addressForms: [nl, fr] })],
      '2026-02-10',
    );
    const movedTo = { ...nl, street: 'Wetstraat', postalCode: '1040', place: 'Etterbeek' };
    const moved = await registry(
      [
        unit(
          70,
          { address: movedTo, place: 'Etterbeek' },
          { addressForms: [movedTo, { ...movedTo, street: 'Rue de la Loi' }] },
        ),
      ],
      '2026-03-10',
    );

    expect([renamed.summary.changed, renamed.summary.updates]).toEqual([1, 0]);
    expect(moved.summary.updates).toBe(1);
    expect((await updatesOf(70)).map((u) => [u.type, u.time, u.title])).toEqual([
      ['MOVED', '2026-03-10', 'Registered office moved to Etterbeek'],
    ]);
  });
});

describe('webhook deliveries (§12)', () => {
  let server: http.Server | undefined;
  afterAll(async () => {
    server?.closeAllConnections();
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  });

  it('delivers a signed event for each of NAME_CHANGED, MOVED and STOPPED of a watched company', async () => {
    const received: Array<{ id: string; timestamp: string; signature: string; body: string }> = [];
    server = http.createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (c: Buffer) => chunks.push(c));
      request.on('end', () => {
        received.push({
          id: String(request.headers['webhook-id']),
          timestamp: String(request.headers['webhook-timestamp']),
          signature: String(request.headers['webhook-signature']),
          body: Buffer.concat(chunks).toString('utf8'),
        });
        response.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const caller: Caller = { accountId: 'hooked', userEmail: 'x@hooked.example', scopes: [...SCOPES] };
    const { body: endpoint } = await createWebhook(
      caller,
      { url: `http://127.0.0.1:${port}/hook` },
      LOCAL_RECEIVERS,
    );
    await registry([unit(60)], '2026-01-10');
    const { id } = (
      await createOneList(caller, { name: 'Hooked', type: 'STATIC', notifications: { enabled: true } })
    ).body;
    await addCompanies(caller, id, [{ country: 'BE', companyNumber: beNumber(60) }]);

    await registry(
      [unit(60, { name: 'Zestig BV', address: { ...ADDRESS, street: 'Markt' }, stoppedOn: '2026-01-31' })],
      '2026-02-02',
    );
    await deliverUntilQuiet(20);

    const verifier = new Webhook(endpoint.secret);
    const events = received.map(
      (r) =>
        verifier.verify(r.body, {
          'webhook-id': r.id,
          'webhook-timestamp': r.timestamp,
          'webhook-signature': r.signature,
        }) as CompanyUpdateEvent,
    );
    expect(events.map((e) => [e.data.update.type, e.data.update.title]).sort()).toEqual([
      ['MOVED', 'Registered office moved to Gent'],
      ['NAME_CHANGED', 'Name changed from Registry 60 NV to Zestig BV'],
      ['STOPPED', 'The company stopped its activities'],
    ]);
  });
});
