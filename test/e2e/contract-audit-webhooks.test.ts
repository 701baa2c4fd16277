/**
 * Contract audit of the webhook endpoints (contract §12) through the local gateway: what a request
 * sends is what the endpoint keeps and answers, field by field.
 */
import { useApi } from './http';

const api = useApi();

async function send(method: string, path: string, body: unknown) {
  return api.send(method, path, {
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
}

describe('webhook endpoint description (§12: `"description"?`, answered as a string or null)', () => {
  it('keeps a description sent as null as null, at creation and on a change', async () => {
    const created = await send('POST', '/v1/webhooks', {
      url: 'http://127.0.0.1:4999/hook',
      description: null,
    });
    expect(created.status).toBe(201);
    expect(created.body.description).toBeNull();

    const id = created.body.id as string;
    expect((await send('PATCH', `/v1/webhooks/${id}`, { description: 'CRM sync' })).body.description).toBe(
      'CRM sync',
    );
    const cleared = await send('PATCH', `/v1/webhooks/${id}`, { description: null });
    expect(cleared.status).toBe(200);
    expect(cleared.body.description).toBeNull();
    expect((await api.get(`/v1/webhooks/${id}`)).body.description).toBeNull();
    expect((await api.send('DELETE', `/v1/webhooks/${id}`)).status).toBe(204);
  });

  it('answers a description that is neither a string nor null with 400 on `description`', async () => {
    const refused = await send('POST', '/v1/webhooks', { url: 'http://127.0.0.1:4999/hook', description: 5 });
    expect(refused.status).toBe(400);
    expect(refused.body.details).toEqual([{ path: 'description', message: 'must be a string or null' }]);
  });
});
