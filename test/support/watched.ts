/** A notification-enabled static list (contract §12) holding companies, for the events and webhook tests. */
import type { CompanyRecordInput } from '../../lib/companies/record';
import { addCompanies } from '../../lib/lists/add-companies';
import { createOneList } from '../../lib/lists/manage';
import type { Caller } from '../../lib/tokens/caller';

let lists = 0;

/** Creates a watched list of the caller's holding the records (PUTs of 100, §7.5's limit); its id. */
export async function watchCompanies(caller: Caller, records: CompanyRecordInput[]): Promise<number> {
  const { id } = (
    await createOneList(caller, {
      name: `Watched ${++lists}`,
      type: 'STATIC',
      notifications: { enabled: true },
    })
  ).body;
  for (let i = 0; i < records.length; i += 100) {
    await addCompanies(
      caller,
      id,
      records.slice(i, i + 100).map((r) => ({ country: r.country, companyNumber: r.companyNumber })),
    );
  }
  return id;
}
