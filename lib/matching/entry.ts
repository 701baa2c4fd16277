/** What a customer may know about a company to add it to a list (contract §7.5). */

/** The properties an entry may give, in the contract's spelling (`country`, `VAT`). */
export const ENTRY_PROPERTIES = ['companyNumber', 'country', 'name', 'website', 'VAT'] as const;
export type EntryProperty = (typeof ENTRY_PROPERTIES)[number];
