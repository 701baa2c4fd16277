/**
 * (ext) Company details and company contacts (contract §6.5): what the imported record (§11.1) says
 * about a company, in the fields of the service this contract extends, and the people to call there.
 *
 * One read per company (lib/companies/details-store.ts), of its profile and the three figures details
 * show of its periods and contacts, which the import keeps beside them (lib/companies/details-figures.ts).
 */
import { CompanyNotFound } from '../errors';
import { paginate, type PageRequest } from '../http/pagination';
import { canonicalVat } from './normalise';
import { toIdentifier } from './company';
import { byContactName } from './contact-order';
import type { BulkDetailsItem, CompanyContacts, CompanyDetails, CompanyDetailsData } from './details-schemas';
import {
  getCompanyContactsItem,
  getCompanyDetailsItem,
  getCompanyDetailsItems,
  type StoredDetails,
} from './details-store';
import { answerEach, companyRefFromPath, type BulkCompanyEntry } from './requested-companies';

type CompanyPath = { countryCode: string; companyNumber: string };

export async function getCompanyDetails(path: CompanyPath, today = todayUtc()): Promise<CompanyDetails> {
  const found = await getCompanyDetailsItem(companyRefFromPath(path));
  if (!found) throw new CompanyNotFound();
  return { identifier: toIdentifier(found.company), data: detailsOf(found, today) };
}

export async function getDetailsInBulk(
  { companies }: { companies: BulkCompanyEntry[] },
  today = todayUtc(),
): Promise<BulkDetailsItem[]> {
  return answerEach<StoredDetails, BulkDetailsItem>(companies, getCompanyDetailsItems, {
    found: (found) => ({
      identifier: toIdentifier(found.company),
      data: detailsOf(found, today),
      message: null,
    }),
    failed: (identifier, message) => ({ identifier, data: null, message }),
  });
}

/** §6.5: ordered by lastName, firstName, contactId; `total` is every contact of the company. */
export async function getCompanyContacts(path: CompanyPath, page: PageRequest): Promise<CompanyContacts> {
  const found = await getCompanyContactsItem(companyRefFromPath(path));
  if (!found) throw new CompanyNotFound();
  const contacts = found.contacts.sort(byContactName);
  // Ordered in full (the order decides the page), shaped only for the page.
  const { data, pagination } = paginate(contacts, page);
  return {
    identifier: toIdentifier(found.company),
    data: data.map(({ jobTitle, contactId, firstName, lastName }) => ({
      jobTitle: jobTitle ?? null,
      identifier: { contactId, firstName, lastName },
    })),
    pagination,
  };
}

/** The fields of §6.5 from the stored record, in the contract's order. */
export function detailsOf({ company, figures }: StoredDetails, today: string): CompanyDetailsData {
  const address = company.address;
  return {
    vatNumber: company.vatNumber === null ? null : canonicalVat(company.vatNumber, company.country),
    // A company that announced a stop later than today still trades today.
    status: company.stoppedOn !== null && company.stoppedOn <= today ? 'INACTIVE' : 'ACTIVE',
    establishedSince: atMidnight(company.foundedOn),
    stoppedSince: atMidnight(company.stoppedOn),
    companyTypeCode: company.legalForm,
    name: company.name,
    address: {
      country: address?.country ?? company.country,
      street: address?.street ?? null,
      number: address?.number ?? null,
      box: address?.box ?? null,
      postalCode: address?.postalCode ?? null,
      place: address?.place ?? company.place,
    },
    website: company.website === null ? [] : [company.website],
    activities: company.activities,
    employees: figures.employees,
    healthIndicator: figures.healthIndicator,
    contacts: figures.contacts,
    otherNames: company.otherNames,
  };
}

const atMidnight = (date: string | null) => (date === null ? null : `${date}T00:00:00.000Z`);
const todayUtc = () => new Date().toISOString().slice(0, 10);
