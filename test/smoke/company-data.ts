/**
 * The smoke check's calls of the company data endpoints (contract §6.5), through the typed client:
 * details, contacts and bulk details of a company the stage holds, search by name and by number, match.
 */
import type { Client } from 'openapi-fetch';
import type { paths } from './openapi';

export interface Check {
  name: string;
  run: () => Promise<void>;
}

export type CompanyPath = { countryCode: string; companyNumber: string };

export function companyDataChecks(
  api: Client<paths>,
  aCompany: () => Promise<CompanyPath>,
  expectThat: (condition: boolean, message: string) => void,
): Check[] {
  /** The identifier the stage's details give for a company it holds. */
  const anIdentifier = async () => {
    const details = await api.GET('/v1/companies/{countryCode}/{companyNumber}', {
      params: { path: await aCompany() },
    });
    const identifier = details.data?.identifier;
    expectThat(identifier !== undefined, JSON.stringify(details.error));
    return identifier!;
  };
  return [
    {
      name: "a company's details, its contacts, and details in bulk (§6.5)",
      run: async () => {
        const path = await aCompany();
        const details = await api.GET('/v1/companies/{countryCode}/{companyNumber}', { params: { path } });
        const found = details.data;
        expectThat(
          found?.identifier.companyNumber === path.companyNumber &&
            found.data.name === found.identifier.name &&
            found.data.address.country === found.identifier.country &&
            ['ACTIVE', 'INACTIVE'].includes(found.data.status) &&
            Number.isInteger(found.data.contacts),
          JSON.stringify(details.data ?? details.error),
        );
        const { identifier } = found!;

        // A page of 2: as many as the details count (at most 2), by last name, first name, id.
        const contacts = await api.GET('/v1/companies/{countryCode}/{companyNumber}/contacts', {
          params: { path, query: { limit: 2 } },
        });
        const page = contacts.data;
        expectThat(
          page?.identifier.companyNumber === identifier.companyNumber &&
            page.pagination.total === found!.data.contacts &&
            page.pagination.limit === 2 &&
            page.data.length === Math.min(2, found!.data.contacts),
          JSON.stringify(contacts.data ?? contacts.error),
        );
        const sortKey = (c: NonNullable<typeof page>['data'][number]) => [
          c.identifier.lastName,
          c.identifier.firstName,
          String(c.identifier.contactId).padStart(12, '0'),
        ];
        const ordered = page!.data.every(
          (c, i, all) => i === 0 || compareKeys(sortKey(all[i - 1]!), sortKey(c)) <= 0,
        );
        expectThat(ordered, `contacts out of order: ${JSON.stringify(page!.data)}`);

        // One found, one that is a valid number of no company: answered in request order.
        const unknown = { countryCode: 'NL', companyNumber: '00000000' };
        const bulk = await api.POST('/v1/companies', { body: { companies: [path, unknown] } });
        const [first, second] = bulk.data ?? [];
        // (The client's types leave out a property whose only value is null: `in` tells the items apart.)
        expectThat(
          bulk.data?.length === 2 &&
            first !== undefined &&
            'data' in first &&
            first.data.name === identifier.name &&
            JSON.stringify(first.identifier) === JSON.stringify(identifier) &&
            second !== undefined &&
            'message' in second &&
            second.message === 'Company not found' &&
            JSON.stringify(second) ===
              JSON.stringify({
                identifier: { country: 'NL', companyNumber: '00000000' },
                data: null,
                message: 'Company not found',
              }),
          JSON.stringify(bulk.data ?? bulk.error),
        );
      },
    },
    {
      name: 'search by name and by number (§6.5)',
      run: async () => {
        const identifier = await anIdentifier();
        const { country, companyNumber, name } = identifier;
        const byName = await api.GET('/v1/companies', {
          params: { query: { q: name, countryCode: country, limit: 5 } },
        });
        const names = byName.data ?? [];
        // Its exact name: the company is among the first (several may share the name), all of its country.
        expectThat(
          names.length >= 1 &&
            names.length <= 5 &&
            names[0]!.name === name &&
            names.some((c) => c.companyNumber === companyNumber) &&
            names.every((c) => c.country === country),
          JSON.stringify(byName.data ?? byName.error),
        );
        const byNumber = await api.GET('/v1/companies', { params: { query: { q: companyNumber } } });
        expectThat(
          JSON.stringify(byNumber.data?.[0]) === JSON.stringify(identifier),
          JSON.stringify(byNumber.data ?? byNumber.error),
        );
      },
    },
    {
      name: 'match: a usable entry finds the company, one with nothing usable fails its item (§6.5)',
      run: async () => {
        const identifier = await anIdentifier();
        const usable = {
          name: identifier.name,
          country: identifier.country,
          companyNumber: identifier.companyNumber,
        };
        const { data, error } = await api.POST('/v1/companies/match', {
          body: { companies: [usable, { place: 'Gent', note: 'not a match property' }] },
        });
        const [hit, nothing] = data ?? [];
        const top = hit?.data?.[0];
        expectThat(
          data?.length === 2 &&
            hit?.message === null &&
            // Echoed as sent, keys in the order sent.
            JSON.stringify(hit.parameters) === JSON.stringify(usable) &&
            JSON.stringify(top?.identifier) === JSON.stringify(identifier) &&
            top!.confidence >= 0.9 &&
            top!.matchedOn.includes('companyNumber') &&
            hit.data!.every((c, i, all) => i === 0 || all[i - 1]!.confidence >= c.confidence),
          JSON.stringify(data ?? error),
        );
        expectThat(
          nothing?.data === null &&
            nothing.message === 'At least one of companyNumber, VAT, website or name is required' &&
            JSON.stringify(nothing.parameters) === JSON.stringify({ place: 'Gent' }),
          JSON.stringify(nothing),
        );
      },
    },
  ];
}

/** Orders two lists of sort keys, key by key. */
function compareKeys(a: string[], b: string[]): number {
  for (let i = 0; i < a.length; i++) {
    if (a[i] !== b[i]) return a[i]! < b[i]! ? -1 : 1;
  }
  return 0;
}
