/** The smart-list filter language (contract §7.6): validation with details, and the matching rule. */
import * as v from 'valibot';
import {
  companyBuckets,
  filterBuckets,
  filtersSchema,
  matchesFilters,
  packProfile,
  unpackProfile,
  type FilterProfile,
  type Filters,
} from '../../lib/lists/filters';
import { validate } from '../../lib/http/validation';
import { ValidationError } from '../../lib/http/errors';

const parse = (input: unknown) => validate(filtersSchema, input, 'filters');
const problems = (input: unknown) => {
  try {
    parse(input);
  } catch (error) {
    if (error instanceof ValidationError) return error.details;
    throw error;
  }
  throw new Error('expected a validation error');
};

const company: FilterProfile = {
  country: 'BE',
  activities: ['62010', '70220'],
  place: 'gent',
  employees: 40,
  totalAssets: 2_500_000,
  healthIndicator: 7,
};

describe('filter validation', () => {
  it('accepts every criterion and normalises countries and NACE codes', () => {
    expect(
      parse({
        countries: ['be', 'NL'],
        activities: ['62', '47.11'],
        places: [' Gent '],
        employees: { min: 10, max: 250 },
        totalAssets: { min: 1000000 },
        healthIndicator: { min: 6 },
      }),
    ).toEqual({
      countries: ['BE', 'NL'],
      activities: ['62', '4711'],
      places: ['Gent'],
      employees: { min: 10, max: 250 },
      totalAssets: { min: 1000000 },
      healthIndicator: { min: 6 },
    });
  });

  it.each([
    [{}, [{ path: 'filters', message: expect.stringContaining('at least one criterion') }]],
    [{ revenue: { min: 1 } }, [{ path: 'revenue', message: expect.stringContaining('is not a criterion') }]],
    [{ employees: { min: 300, max: 10 } }, [{ path: 'employees', message: 'min must be ≤ max' }]],
    [{ employees: {} }, [{ path: 'employees', message: 'must have min, max or both' }]],
    [{ employees: { min: '10' } }, [{ path: 'employees.min', message: 'must be a number' }]],
    [
      { employees: { least: 1 } },
      [{ path: 'employees.least', message: expect.stringContaining('not a known bound') }],
    ],
    [{ activities: ['6'] }, [{ path: 'activities[0]', message: 'must be a NACE code of 2 to 5 digits' }]],
    [
      { activities: ['620100'] },
      [{ path: 'activities[0]', message: 'must be a NACE code of 2 to 5 digits' }],
    ],
    [{ activities: ['ab'] }, [{ path: 'activities[0]', message: 'must be a NACE code of 2 to 5 digits' }]],
    [{ activities: [] }, [{ path: 'activities', message: 'must contain at least 1 NACE code' }]],
    [{ countries: ['DE'] }, [{ path: 'countries[0]', message: 'must be one of BE, NL, FR' }]],
    [{ places: ['  '] }, [{ path: 'places[0]', message: 'must not be empty' }]],
    [[], [{ path: 'filters', message: 'must be an object of criteria' }]],
  ])('rejects %j with details', (input, details) => {
    expect(problems(input)).toEqual(details);
  });
});

describe('matching a company', () => {
  const matches = (filters: Filters) => matchesFilters(v.parse(filtersSchema, filters), company);

  it('holds when every criterion holds, and any value of an array may', () => {
    expect(
      matches({ countries: ['NL', 'BE'], activities: ['47', '62'], employees: { min: 10, max: 40 } }),
    ).toBe(true);
    expect(matches({ activities: ['7022'] })).toBe(true);
    expect(matches({ places: ['GENT'] })).toBe(true);
    expect(matches({ totalAssets: { min: 2_500_000 }, healthIndicator: { max: 7 } })).toBe(true);
  });

  it('fails when one criterion fails', () => {
    expect(matches({ countries: ['BE'], activities: ['41'] })).toBe(false);
    expect(matches({ employees: { min: 41 } })).toBe(false);
    expect(matches({ places: ['Gentbrugge'] })).toBe(false);
    expect(matches({ countries: ['FR'] })).toBe(false);
  });

  it('never matches a range on a figure the company lacks', () => {
    expect(matchesFilters({ employees: { max: 1000 } }, { ...company, employees: null })).toBe(false);
  });

  it('compares places without case or accents', () => {
    expect(
      matchesFilters(v.parse(filtersSchema, { places: ['Liège'] }), { ...company, place: 'liege' }),
    ).toBe(true);
  });

  it('files a filter under buckets that every company it matches looks up', () => {
    const filters = v.parse(filtersSchema, { countries: ['BE'], activities: ['6201', '70'] });
    expect(filterBuckets(filters)).toEqual(['BE#62', 'BE#70']);
    expect(companyBuckets(company)).toEqual(
      expect.arrayContaining(['BE#62', 'BE#70', 'BE#*', '*#*', '*#62']),
    );
    expect(filterBuckets(v.parse(filtersSchema, { employees: { min: 1 } }))).toEqual(['*#*']);
  });

  it('packs a profile and unpacks the same', () => {
    expect(unpackProfile('BE', packProfile(company))).toEqual(company);
  });
});
