/** The pure parts of events (contract §12): stable ids, the body's shape, the feed's cursor. */
import { eventAsSeen } from '../../lib/events/visibility';
import { companyUpdateEvent, decodeCursor, encodeCursor, eventId } from '../../lib/events/event';

const company = { country: 'BE' as const, companyNumber: '0403170701', name: 'Acme Bouw NV', place: 'Gent' };
const update = { id: '1234567890123456789', time: '2024-06-30', type: 'HEALTHDROP' as const, drop: 2 };

describe('event ids', () => {
  it('are the same for the same update and account, and differ between accounts and updates', () => {
    expect(eventId('acme', update.id)).toBe(eventId('acme', update.id));
    expect(eventId('acme', update.id)).toMatch(/^evt_[0-9a-f]{24}$/);
    expect(eventId('globex', update.id)).not.toBe(eventId('acme', update.id));
    expect(eventId('acme', '1234567890123456788')).not.toBe(eventId('acme', update.id));
  });
});

describe('the event body', () => {
  it('has the contract keys in order, its lists sorted and the title in English', () => {
    const event = companyUpdateEvent('acme', {
      company,
      legalEntityId: '4820917733',
      lists: [12, 7],
      update,
      createdAt: '2026-11-25T10:00:00.000Z',
    });
    expect(JSON.stringify(event)).toBe(
      JSON.stringify({
        id: eventId('acme', update.id),
        type: 'company.update',
        createdAt: '2026-11-25T10:00:00.000Z',
        data: {
          company,
          legalEntityId: '4820917733',
          lists: [7, 12],
          update: {
            id: update.id,
            type: 'HEALTHDROP',
            title: 'Health dropped by 2',
            time: '2024-06-30',
            sourceUrl: null,
            sourceType: null,
            status: 'ACTIVE',
          },
        },
      }),
    );
  });
});

describe('cursors', () => {
  const cursor = { sequence: 42, sinceMs: 1_764_000_000_000 };

  it('come back as they were given, for the account they were given to', () => {
    expect(decodeCursor('acme', encodeCursor('acme', cursor))).toEqual(cursor);
    expect(encodeCursor('acme', cursor)).toMatch(/^[A-Za-z0-9_-]+$/);
  });

  it.each([
    ['another account', encodeCursor('globex', cursor)],
    ['text', 'hello'],
    ['empty', ''],
    [
      'a changed number',
      Buffer.from(
        Buffer.from(encodeCursor('acme', cursor), 'base64url').toString().replace('42', '43'),
      ).toString('base64url'),
    ],
    ['padding', `${encodeCursor('acme', cursor)}==`],
  ])('refuse %s', (_, text) => {
    expect(decodeCursor('acme', text)).toBeNull();
  });
});

describe('an event as a reader sees it (§12: list visibility)', () => {
  const body = JSON.stringify({
    id: 'evt_1',
    type: 'company.update',
    createdAt: '2026-11-21T10:00:00.000Z',
    data: { company: { country: 'BE' }, legalEntityId: 'le_1', lists: [7, 12], update: { id: 'u1' } },
  });

  it('is the same text when the reader sees every list it names', () => {
    expect(eventAsSeen(body, new Set([7, 12, 30]))).toBe(body);
  });

  it('names only the lists the reader sees, every key in its place', () => {
    const seen = eventAsSeen(body, new Set([12]));
    expect(seen).toBe(body.replace('"lists":[7,12]', '"lists":[12]'));
  });

  it('is not shown to a reader who sees none of its lists', () => {
    expect(eventAsSeen(body, new Set([3]))).toBeNull();
  });

  it('shows a test event, which names no list, as it is', () => {
    const test = JSON.stringify({ id: 'evt_t', type: 'webhook.test', createdAt: 'x', data: {} });
    expect(eventAsSeen(test, new Set())).toBe(test);
  });
});
