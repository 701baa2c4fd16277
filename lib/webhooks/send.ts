/**
 * One HTTP delivery attempt (contract §12): `POST url` with the event as body and the Standard Webhooks
 * headers, signed with each secret still valid (the `standardwebhooks` package, the reference
 * implementation). A 2xx answer within 10 s delivers; anything else fails the attempt: another status,
 * a redirect (never followed), a timeout, a refused or reset connection, a URL the rules refuse now.
 *
 * The attempt lasts 10 s at most, from the start of the URL's check to the answer's end.
 *
 * The URL is checked again before the attempt, and the connection goes to the very addresses checked:
 * the request resolves its host through the same check (`lookup`), so a name cannot resolve to a
 * public address for the check and a private one for the connection.
 */
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { webhookConfig } from '../config';
import { checkUrl, isPublicAddress, RefusedUrl, type UrlRules } from './url';

/** What is read of an answer's body (it is not kept): enough to let the receiver finish its answer. */
const MAX_ANSWER_BYTES = 64 * 1024;

export interface Sent {
  /** The answer's status, or null when there was none (refused, reset, timed out, URL refused). */
  responseStatus: number | null;
  delivered: boolean;
  durationMs: number;
}

/** The `webhook-signature` header: `v1,<base64>` per secret, space-separated (Standard Webhooks 1.0). */
export function signatures(secrets: string[], id: string, at: Date, body: string): string {
  return secrets.map((secret) => new Webhook(secret).sign(id, at, body)).join(' ');
}

export async function sendEvent(
  input: { url: string; eventId: string; body: string; secrets: string[]; at: Date },
  rules: UrlRules,
  // §12: 10 s (WEBHOOK_TIMEOUT_MS shortens it for the tests' receivers that never answer).
  timeoutMs = webhookConfig.timeoutMs(),
): Promise<Sent> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const failed = (): Sent => ({ responseStatus: null, delivered: false, durationMs: elapsed() });
  // The attempt's time covers resolving the host too: a name server that stalls fails the attempt in time.
  let timer: NodeJS.Timeout | undefined;
  const outOfTime = new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), timeoutMs)));
  let url: URL | null;
  try {
    url = await Promise.race([checkUrl(input.url, rules), outOfTime]);
  } catch (error) {
    if (error instanceof RefusedUrl) return failed();
    throw error;
  } finally {
    clearTimeout(timer);
  }
  if (url === null) return failed();
  const headers = {
    'Content-Type': 'application/json',
    'User-Agent': 'company-data-api-webhooks/1',
    'webhook-id': input.eventId,
    'webhook-timestamp': String(Math.floor(input.at.getTime() / 1000)),
    'webhook-signature': signatures(input.secrets, input.eventId, input.at, input.body),
  };
  const status = await post(
    url,
    headers,
    input.body,
    checkedLookup(rules),
    Math.max(0, timeoutMs - elapsed()),
  );
  return {
    responseStatus: status,
    delivered: status !== null && status >= 200 && status < 300,
    durationMs: elapsed(),
  };
}

/** Resolves through the rules' resolver and refuses any address the rules would (see the module comment). */
function checkedLookup(rules: UrlRules): LookupFunction {
  return (hostname, options, callback) => {
    const host = hostname.toLowerCase();
    const local = rules.allowLocal && (host === 'localhost' || host === '127.0.0.1');
    const resolved = local ? Promise.resolve(['127.0.0.1']) : rules.resolve(hostname);
    resolved.then(
      (addresses) => {
        const allowed = local ? addresses : addresses.filter(isPublicAddress);
        if (allowed.length === 0 || allowed.length !== addresses.length) {
          callback(new RefusedUrl('resolves to an address that may not receive deliveries'), '', 4);
          return;
        }
        const all = allowed.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
        if (options.all) (callback as (e: null, a: typeof all) => void)(null, all);
        else callback(null, all[0]!.address, all[0]!.family);
      },
      (error: Error) => callback(error, '', 4),
    );
  };
}

/** The answer's status, or null when there is none within the time (no redirect is followed: a 3xx is a status). */
function post(
  url: URL,
  headers: Record<string, string>,
  body: string,
  lookup: LookupFunction,
  timeoutMs: number,
): Promise<number | null> {
  return new Promise((resolve) => {
    const client = url.protocol === 'https:' ? https : http;
    let settled = false;
    const finish = (status: number | null) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      request.destroy();
      resolve(status);
    };
    const request = client.request(
      url,
      {
        method: 'POST',
        headers: { ...headers, 'Content-Length': Buffer.byteLength(body) },
        lookup,
        agent: false,
      },
      (answer) => {
        let read = 0;
        answer.on('data', (chunk: Buffer) => {
          read += chunk.length;
          if (read > MAX_ANSWER_BYTES) finish(answer.statusCode ?? null);
        });
        answer.on('end', () => finish(answer.statusCode ?? null));
        answer.on('error', () => finish(null));
      },
    );
    const timer = setTimeout(() => finish(null), timeoutMs);
    request.on('error', () => finish(null));
    request.end(body);
  });
}
