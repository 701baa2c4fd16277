import {
  CompanyNotFound,
  IdempotencyKeyReused,
  InvalidInput,
  LegalEntityNotFound,
  ListBusy,
  ListNameTaken,
  ListNotFound,
  ListNotStatic,
  NotListCreator,
} from '../../lib/errors';
import { asApiError, isExpected, toErrorBody } from '../../lib/http/errors';
import { StorageUnavailableError } from '../../lib/storage/errors';

const answered = (error: unknown) => {
  const apiError = asApiError(error);
  return { status: apiError.status, body: toErrorBody(apiError, 'r1'), headers: apiError.headers };
};

describe('the one mapping from domain errors to the contract (§2.1)', () => {
  it.each([
    [new CompanyNotFound(), 404, 'NOT_FOUND', 'Company not found'],
    [new LegalEntityNotFound(), 404, 'NOT_FOUND', 'Legal entity not found'],
    [new ListNotFound(), 404, 'NOT_FOUND', 'List not found'],
    [new NotListCreator(), 403, 'FORBIDDEN', "Only the list's creator may do this"],
    [new ListNameTaken(), 409, 'LIST_NAME_TAKEN', 'The account already has a list with this name'],
    [new ListNotStatic(), 409, 'LIST_NOT_STATIC', 'Companies can only be added to static lists'],
    [
      IdempotencyKeyReused.differentRequest(),
      409,
      'IDEMPOTENCY_KEY_REUSED',
      'Idempotency-Key was already used with a different request',
    ],
    [
      IdempotencyKeyReused.inProgress(),
      409,
      'IDEMPOTENCY_KEY_REUSED',
      'A request with this Idempotency-Key is still in progress; retry later for its answer',
    ],
  ])('answers %p with %i %s', (error, status, code, message) => {
    expect(answered(error)).toEqual({ status, body: { message, code, requestId: 'r1' }, headers: {} });
    expect(isExpected(error)).toBe(true);
  });

  it('answers invalid input 400 VALIDATION_ERROR with its details', () => {
    const error = InvalidInput.field('Invalid country code', 'countryCode', 'must be BE, NL or FR');

    expect(answered(error)).toEqual({
      status: 400,
      body: {
        message: 'Invalid country code',
        code: 'VALIDATION_ERROR',
        requestId: 'r1',
        details: [{ path: 'countryCode', message: 'must be BE, NL or FR' }],
      },
      headers: {},
    });
  });

  it('answers a list that kept changing, like storage trouble, 503 with a Retry-After of 2 to 5 s', () => {
    for (const error of [new ListBusy(), new StorageUnavailableError()]) {
      const { status, body, headers } = answered(error);

      expect({ status, code: body.code, message: body.message }).toEqual({
        status: 503,
        code: 'UNAVAILABLE',
        message: 'Service unavailable, retry later',
      });
      expect(Number(headers['Retry-After'])).toBeGreaterThanOrEqual(2);
      expect(Number(headers['Retry-After'])).toBeLessThanOrEqual(5);
    }
  });

  it('answers anything else a bare 500 and calls it unexpected', () => {
    const error = new Error('secret detail');

    expect(answered(error).body).toEqual({
      message: 'Internal server error',
      code: 'INTERNAL',
      requestId: 'r1',
    });
    expect(isExpected(error)).toBe(false);
  });
});
