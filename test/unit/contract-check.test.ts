/** The shared answer check (test/support/openapi.ts) catches what it is there to catch. */
import { answerProblems, routeOf } from '../support/openapi';

const headers = (extra: Record<string, string> = {}) =>
  new Headers({ 'content-type': 'application/json; charset=utf-8', 'x-request-id': 'r-1', ...extra });
const answer = (status: number, body: unknown, extra?: Record<string, string>) => ({
  status,
  headers: headers(extra),
  raw: JSON.stringify(body),
  body,
});
const identifier = { country: 'BE', companyNumber: '0403170701', name: 'Acme', place: 'Gent' };
const pagination = { limit: 4, offset: 0, total: 0 };
const entities = '/v1/companies/BE/0403170701/legal-entities';

describe('the contract check of an answer', () => {
  it('routes by method and path template', () => {
    expect(routeOf('GET', `${entities}?limit=2`)?.routeId).toBe('getCompanyLegalEntities');
    expect(routeOf('POST', entities)).toBeNull();
  });

  it('passes an answer that is exactly the contract', () => {
    expect(answerProblems('GET', entities, answer(200, { identifier, data: [], pagination }))).toEqual([]);
    expect(answerProblems('GET', '/v1/health', answer(200, { status: 'ok' }))).toEqual([]);
  });

  it('fails a missing, renamed, extra or reordered field', () => {
    const noPlace = { country: 'BE', companyNumber: '0403170701', name: 'Acme' };
    expect(
      answerProblems('GET', entities, answer(200, { identifier: noPlace, data: [], pagination })),
    ).not.toEqual([]);
    expect(answerProblems('GET', entities, answer(200, { identifier, items: [], pagination }))).not.toEqual(
      [],
    );
    expect(answerProblems('GET', entities, answer(200, { identifier, data: [], pagination, x: 1 }))).toEqual([
      'body has keys the document does not name: x',
    ]);
    expect(answerProblems('GET', entities, answer(200, { data: [], identifier, pagination }))).toEqual([
      'body keys are in the order data, identifier, pagination; the document says identifier, data, pagination',
    ]);
  });

  it('fails a status the operation does not list, and an error without the request id', () => {
    expect(
      answerProblems('GET', '/v1/health', answer(404, { message: 'x', code: 'NOT_FOUND', requestId: 'r-1' })),
    ).toEqual([expect.stringContaining('does not list')]);
    expect(
      answerProblems(
        'GET',
        entities,
        answer(404, { message: 'Company not found', code: 'NOT_FOUND', requestId: 'other' }),
      ),
    ).toEqual(['the error body’s requestId is not the x-request-id header']);
    expect(answerProblems('GET', entities, answer(404, { code: 'NOT_FOUND', requestId: 'r-1' }))).not.toEqual(
      [],
    );
  });

  it('holds an answer of no route to the error shape', () => {
    const notFound = { message: 'Route not found', code: 'NOT_FOUND', requestId: 'r-1' };
    expect(answerProblems('GET', '/v1/nothing', answer(404, notFound))).toEqual([]);
    expect(answerProblems('GET', '/v1/nothing', answer(200, {}))).not.toEqual([]);
  });
});
