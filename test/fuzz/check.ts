/** Sending a generated request and judging its answer: shared by the fuzz tests and `npm run fuzz`. */
import { writesAny } from '../../lib/storage/access';
import { answerProblems, readAnswer } from '../support/openapi';
import { routes, type RouteId } from '../../lib/routes';
import type { Operation } from './operations';
import { internalsIn, type FuzzRequest } from './requests';

export interface FuzzAnswer {
  status: number;
  headers: Headers;
  raw: string;
  body: unknown;
}

const BODYLESS = new Set(['GET', 'HEAD']);

/** HTTP header values are bytes: anything outside Latin-1 is replaced, as a client library would refuse it. */
const latin1 = (value: string) => value.replace(/[^\x20-\x7e\xa0-\xff]/g, '?');

export async function sendFuzzRequest(baseUrl: string, request: FuzzRequest): Promise<FuzzAnswer> {
  const headers = Object.fromEntries(Object.entries(request.headers).map(([k, v]) => [k, latin1(v)]));
  const response = await fetch(`${baseUrl}${request.url}`, {
    method: request.method,
    headers,
    ...(request.body !== undefined && !BODYLESS.has(request.method) ? { body: request.body } : {}),
  });
  // A page for people (the reference page, 2.5 MB) is judged by its status and headers: not downloaded.
  if (!(response.headers.get('content-type') ?? '').startsWith('application/json')) {
    await response.body?.cancel();
    return { status: response.status, headers: response.headers, raw: '', body: undefined };
  }
  return readAnswer(response);
}

/** Everything wrong with an answer: a 5xx, anything off the published contract, internals in an error. */
export function fuzzCheck(request: FuzzRequest, answer: FuzzAnswer, tableName?: string): string[] {
  // Routed by the path as sent: `..` and `.` segments resolved, as every HTTP client does.
  const sent = new URL(request.url, 'http://fuzz.invalid');
  const problems = answerProblems(request.method, `${sent.pathname}${sent.search}`, answer);
  if (answer.status >= 500) problems.unshift(`answered ${answer.status}`);
  if (answer.status >= 400) {
    problems.push(...internalsIn(answer.raw, tableName).map((what) => `the error answer shows ${what}`));
  }
  return problems;
}

/** Whether a route changes stored data (its row's table access). */
export const isWrite = (operation: Operation): boolean =>
  writesAny(routes[operation.routeId as RouteId].storage);

/**
 * Reads first, then writes, deletions last: a write route's accepted requests change the data (a
 * DELETE of a list), and the routes fuzzed after it must still find data to answer 200 with.
 */
export function inFuzzOrder(operations: Operation[]): Operation[] {
  const stage = (o: Operation) => (!isWrite(o) ? 0 : o.method === 'DELETE' ? 2 : 1);
  return [...operations].sort((a, b) => stage(a) - stage(b));
}
