/**
 * Webhook endpoints (contract §12), scope `webhooks:write`: create (the secret shown once), list, get,
 * change, delete, rotate the secret (the old one keeps signing for 24 h), send a test event, and the
 * deliveries log. An account has at most 5; an id of another account, or none, is 404
 * `Webhook not found`.
 *
 * A new or re-enabled endpoint is sent the events derived from then on: its position in the account's
 * feed starts at the feed's end (the events before are in the feed, `GET /v1/events`).
 */
import { randomBytes } from 'node:crypto';
import { InvalidInput, LimitReached, TestDeliveryTooSoon, WebhookNotFound } from '../errors';
import { lastEventNumber } from '../events/store';
import { answer } from '../http/endpoint';
import type { Caller } from '../tokens/caller';
import { getDeliveries } from './deliveries';
import { enqueueDeliveries } from './queue';
import type { WebhookAnswer } from './schemas';
import { newSecret, secretBox } from './secrets';
import {
  claimTestSlot,
  deleteWebhook,
  getWebhook,
  getWebhooks,
  MAX_WEBHOOKS,
  putNewWebhook,
  updateWebhook,
  WebhookLimitError,
  type SealedSecret,
  type StoredWebhook,
} from './store';
import { checkUrl, RefusedUrl, stageUrlRules, type UrlRules } from './url';

/** §12: a rotated-out secret keeps signing this long. */
export const ROTATION_OVERLAP_MS = 24 * 60 * 60 * 1000;

const toAnswer = (w: StoredWebhook): WebhookAnswer => ({
  id: w.id,
  url: w.url,
  description: w.description,
  enabled: w.enabled,
  createdAt: w.createdAt,
});

async function checkedUrl(url: string, rules: UrlRules): Promise<string> {
  try {
    await checkUrl(url, rules);
    return url;
  } catch (error) {
    if (error instanceof RefusedUrl) throw InvalidInput.field(`url ${error.message}`, 'url', error.message);
    throw error;
  }
}

async function ownWebhook(caller: Caller, id: string): Promise<StoredWebhook> {
  const found = /^wh_[0-9a-f]{20}$/.test(id) ? await getWebhook(caller.accountId, id) : null;
  if (!found) throw new WebhookNotFound();
  return found;
}

export async function createWebhook(
  caller: Caller,
  body: { url: string; description?: string | null | undefined },
  rules: UrlRules = stageUrlRules(),
) {
  const url = await checkedUrl(body.url, rules);
  const id = `wh_${randomBytes(10).toString('hex')}`;
  const secret = newSecret();
  const webhook: StoredWebhook = {
    accountId: caller.accountId,
    id,
    url,
    description: body.description ?? null,
    enabled: true,
    createdAt: new Date().toISOString(),
    createdBy: caller.userEmail,
    secrets: [{ sealed: await secretBox().seal(secret, { accountId: caller.accountId, webhookId: id }) }],
    cursor: await lastEventNumber(caller.accountId),
  };
  try {
    await putNewWebhook(webhook);
  } catch (error) {
    if (error instanceof WebhookLimitError) {
      throw new LimitReached(`An account can have at most ${MAX_WEBHOOKS} webhook endpoints`);
    }
    throw error;
  }
  return answer({ ...toAnswer(webhook), secret }, { Location: `/v1/webhooks/${id}` });
}

export async function listWebhooks(caller: Caller) {
  return { data: (await getWebhooks(caller.accountId)).map(toAnswer) };
}

export async function getOneWebhook(caller: Caller, id: string) {
  return toAnswer(await ownWebhook(caller, id));
}

export async function updateOneWebhook(
  caller: Caller,
  id: string,
  body: { enabled?: boolean | undefined; description?: string | null | undefined; url?: string | undefined },
  rules: UrlRules = stageUrlRules(),
) {
  const webhook = await ownWebhook(caller, id);
  const url = body.url === undefined ? undefined : await checkedUrl(body.url, rules);
  // Re-enabled: sent what is derived from now on; what was derived while it was off stays in the feed.
  const resumes = body.enabled === true && !webhook.enabled;
  // The endpoint's events are those its creator sees (§12). Pointed elsewhere by another user of the
  // account, it sends what that user sees: no user can have another's private lists sent to itself.
  const repointed = url !== undefined && webhook.createdBy !== caller.userEmail;
  const updated = await updateWebhook(caller.accountId, id, {
    ...(url === undefined ? {} : { url }),
    ...(repointed ? { createdBy: caller.userEmail } : {}),
    ...(body.description === undefined ? {} : { description: body.description }),
    ...(body.enabled === undefined ? {} : { enabled: body.enabled }),
    ...(resumes ? { cursor: await lastEventNumber(caller.accountId), clearFailing: true as const } : {}),
  });
  if (!updated) throw new WebhookNotFound();
  return toAnswer(updated);
}

export async function deleteOneWebhook(caller: Caller, id: string): Promise<void> {
  await ownWebhook(caller, id);
  if (!(await deleteWebhook(caller.accountId, id))) throw new WebhookNotFound();
}

/** A new secret first; the one it replaces signs beside it for 24 h; older ones are dropped. */
export async function rotateSecret(caller: Caller, id: string, now = new Date()) {
  for (let attempt = 0; attempt < 5; attempt++) {
    const webhook = await ownWebhook(caller, id);
    const secret = newSecret();
    const sealed = await secretBox().seal(secret, { accountId: caller.accountId, webhookId: id });
    const until = new Date(now.getTime() + ROTATION_OVERLAP_MS).toISOString();
    const [current] = webhook.secrets;
    const secrets: SealedSecret[] = [{ sealed }, ...(current ? [{ sealed: current.sealed, until }] : [])];
    // Only if no other rotation came in between: else two "current" secrets would both be dropped later.
    if (await updateWebhook(caller.accountId, id, { secrets }, { secrets: webhook.secrets }))
      return { secret };
  }
  throw new WebhookNotFound();
}

/** §12: at most one test delivery a minute per endpoint. */
export const TEST_INTERVAL_MS = 60_000;

/**
 * Queues a `webhook.test` event for the endpoint at once, attempted once and never retried; answers its
 * id (to find it in the log). A second test within the minute is refused with the seconds to wait.
 */
export async function sendTestEvent(caller: Caller, id: string, now = new Date()) {
  const webhook = await ownWebhook(caller, id);
  const nowMs = now.getTime();
  const last = await claimTestSlot(caller.accountId, webhook.id, nowMs, TEST_INTERVAL_MS);
  if (last !== null) {
    throw new TestDeliveryTooSoon(Math.max(1, Math.ceil((last + TEST_INTERVAL_MS - nowMs) / 1000)));
  }
  const eventId = `evt_${randomBytes(12).toString('hex')}`;
  const body = JSON.stringify({ id: eventId, type: 'webhook.test', createdAt: now.toISOString(), data: {} });
  await enqueueDeliveries([
    {
      job: { accountId: caller.accountId, webhookId: webhook.id, eventId, attempt: 1, body, test: true },
      dueMs: nowMs,
    },
  ]);
  return { eventId };
}

export async function getWebhookDeliveries(
  caller: Caller,
  id: string,
  page: { limit: number; offset: number },
) {
  await ownWebhook(caller, id);
  return getDeliveries(caller.accountId, id, page);
}
