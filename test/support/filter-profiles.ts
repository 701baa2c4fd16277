/**
 * A filter profile for tests of smart filters (lib/lists/filters.ts): a Belgian programmer in Gent with
 * 12 employees, 900,000 EUR of total assets and health 6, unless `overrides` say otherwise.
 */
import type { FilterProfile } from '../../lib/lists/filters';

export const filterProfile = (overrides: Partial<FilterProfile> = {}): FilterProfile => ({
  country: 'BE',
  activities: ['62010'],
  place: 'gent',
  employees: 12,
  totalAssets: 900_000,
  healthIndicator: 6,
  ...overrides,
});
