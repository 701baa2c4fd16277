/**
 * (ext) Company details and company contacts (contract §6.5): what the imported record (§11.1) says
 * about a company, in the fields of the service this contract extends, and the people to call there.
 *
 * One read per company (lib/companies/details-store.ts). The newest period is cut from the stored
 * periods' text and parsed alone, and the contacts are counted in their text without parsing it, so a
 * bulk call of 100 companies parses 100 periods, not every company's history.
 */
import { CompanyNotFound } from '../errors';
import { paginate, type PageRequest } from '../http/pagination';
import { canonicalVat } from '../matching/normalise';
import { toIdentifier } from './company';
import { byContactName } from './contact-order';
import type { BulkDetailsItem, CompanyContacts, CompanyDetails, CompanyDetailsData } from './details-schemas';
import {
  getCompanyContactsItem,
  getCompanyDetailsItem,
  getCompanyDetailsItems,
  type StoredDetails,
} from './details-store';
import { pageOfPeriods } from './financials';
import type { Contact } from './record';
import { answerEach, companyRefFromPath, type BulkCompanyEntry } from './requested-companies';
import type { FinancialPeriod } from './schemas';

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
  const contacts = (JSON.parse(found.contactsJson) as Contact[]).sort(byContactName);
  return {
    identifier: toIdentifier(found.company),
    ...paginate(
      contacts.map(({ jobTitle, contactId, firstName, lastName }) => ({
        jobTitle: jobTitle ?? null,
        identifier: { contactId, firstName, lastName },
      })),
      page,
    ),
  };
}

/** The fields of §6.5 from the stored record, in the contract's order. */
export function detailsOf(
  { company, periodsJson, contactsJson }: StoredDetails,
  today: string,
): CompanyDetailsData {
  const newest = newestPeriod(periodsJson);
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
      country: company.country,
      street: address?.street ?? null,
      number: address?.number ?? null,
      box: address?.box ?? null,
      postalCode: address?.postalCode ?? null,
      place: address?.place ?? company.place,
    },
    website: company.website === null ? [] : [company.website],
    activities: company.activities,
    employees: newest?.people.employees ?? null,
    healthIndicator: newest?.healthIndicator ?? null,
    contacts: countContacts(contactsJson),
  };
}

/** The newest period (stored first), parsed alone; null for a company without periods. */
function newestPeriod(periodsJson: string): FinancialPeriod | null {
  const [first] = JSON.parse(
    pageOfPeriods(periodsJson, { limit: 1, offset: 0 }).data.text,
  ) as FinancialPeriod[];
  return first ?? null;
}

/**
 * How many contacts the stored text holds: every contact is an object with a `contactId` key, and the
 * text `"contactId":` can only be that key (inside a string every `"` is escaped).
 */
const CONTACT_KEY = '"contactId":';
function countContacts(contactsJson: string): number {
  let count = 0;
  for (let at = contactsJson.indexOf(CONTACT_KEY); at !== -1; at = contactsJson.indexOf(CONTACT_KEY, at + 1))
    count++;
  return count;
}

const atMidnight = (date: string | null) => (date === null ? null : `${date}T00:00:00.000Z`);
const todayUtc = () => new Date().toISOString().slice(0, 10);
