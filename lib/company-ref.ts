/**
 * A company as the registries know it (contract §3): country plus canonical number. A module of its own
 * because both sides of the storage seam name it: the domain (lib/companies/identifiers.ts parses and
 * re-exports it) and the key module (lib/storage/keys.ts builds and reads keys from it), and storage
 * imports no domain module.
 */
export const COUNTRIES = ['BE', 'NL', 'FR'] as const;
export type Country = (typeof COUNTRIES)[number];

export interface CompanyRef {
  country: Country;
  companyNumber: string;
}
