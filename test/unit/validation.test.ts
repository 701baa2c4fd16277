import * as v from 'valibot';
import { ValidationError } from '../../lib/http/errors';
import { paginate } from '../../lib/http/pagination';
import { validate } from '../../lib/http/validation';
import { getCompanyFinancialsBulkRequest, getCompanyFinancialsRequest } from '../../lib/companies/schemas';

function validationError(run: () => unknown): ValidationError {
  try {
    run();
  } catch (error) {
    if (error instanceof ValidationError) return error;
    throw error;
  }
  throw new Error('expected a ValidationError');
}

describe('pagination query parameters', () => {
  const query = getCompanyFinancialsRequest.query;

  it('defaults to limit 4 and offset 0', () => {
    expect(validate(query, {}, 'query')).toEqual({ limit: 4, offset: 0 });
  });

  it('reads integers from strings', () => {
    expect(validate(query, { limit: '500', offset: '10000' }, 'query')).toEqual({
      limit: 500,
      offset: 10000,
    });
  });

  it.each([
    ['0', 'must be ≥ 1'],
    ['501', 'must be ≤ 500'],
    ['abc', 'must be an integer'],
    ['1.5', 'must be an integer'],
    ['', 'must be an integer'],
  ])('rejects limit %p with the whole rule as message', (limit, detail) => {
    const error = validationError(() => validate(query, { limit }, 'query'));
    expect(error.message).toBe('limit must be an integer between 1 and 500');
    expect(error.details).toEqual([{ path: 'limit', message: detail }]);
  });

  it.each(['-1', '10001'])('rejects offset %p', (offset) => {
    const error = validationError(() => validate(query, { offset }, 'query'));
    expect(error.message).toBe('offset must be an integer between 0 and 10000');
  });

  it('ignores unknown parameters', () => {
    expect(validate(query, { limit: '2', colour: 'blue' }, 'query')).toEqual({ limit: 2, offset: 0 });
  });
});

describe('bulk body', () => {
  const body = getCompanyFinancialsBulkRequest.body;

  it('names offending entries in bracket form', () => {
    const error = validationError(() =>
      validate(body, { companies: [{ countryCode: 'BE' }, 'BE0403170701', 7] }, 'body'),
    );
    expect(error.details).toEqual([
      { path: 'companies[1]', message: 'must be an object' },
      { path: 'companies[2]', message: 'must be an object' },
    ]);
  });

  it('rejects a limit sent as a string', () => {
    const error = validationError(() => validate(body, { companies: [{}], limit: '4' }, 'body'));
    expect(error.details).toEqual([{ path: 'limit', message: 'must be an integer' }]);
  });

  it.each([
    [[], 'must contain at least 1 company'],
    [Array.from({ length: 101 }, () => ({})), 'must contain at most 100 companies'],
  ])('rejects %#: %s', (companies, message) => {
    const error = validationError(() => validate(body, { companies }, 'body'));
    expect(error.details).toEqual([{ path: 'companies', message }]);
  });

  it('rejects a body that is not an object', () => {
    const error = validationError(() => validate(body, [], 'body'));
    expect(error.details).toEqual([{ path: 'body', message: 'must be a JSON object' }]);
  });

  it('says a missing companies list is required', () => {
    const error = validationError(() => validate(body, { limit: 2 }, 'body'));
    expect(error.details).toEqual([{ path: 'companies', message: 'is required' }]);
  });

  it('drops unknown fields rather than echoing them', () => {
    const output = validate(body, { companies: [{ countryCode: 'BE', extra: 1 }], extra: true }, 'body');
    expect(output).toEqual({ companies: [{ countryCode: 'BE' }], limit: 4, offset: 0 });
    expect(v.is(body, output)).toBe(true);
  });
});

describe('paginate', () => {
  const items = ['a', 'b', 'c', 'd', 'e'];

  it('returns the page and the exact total', () => {
    expect(paginate(items, { limit: 2, offset: 1 })).toEqual({
      data: ['b', 'c'],
      pagination: { limit: 2, offset: 1, total: 5 },
    });
  });

  it('answers an offset past the end with no data and the true total', () => {
    expect(paginate(items, { limit: 4, offset: 10 })).toEqual({
      data: [],
      pagination: { limit: 4, offset: 10, total: 5 },
    });
  });
});
