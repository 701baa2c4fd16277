/** The one order of a company's contacts (contract §6.5, §7.4): lastName, firstName, contactId. */
import { byCodePoint } from '../order';

interface Named {
  contactId: number;
  firstName: string;
  lastName: string;
}

/** Compared by code point, so the order is the same on every machine whatever its locale. */
export function byContactName(a: Named, b: Named): number {
  return (
    byCodePoint(a.lastName, b.lastName) || byCodePoint(a.firstName, b.firstName) || a.contactId - b.contactId
  );
}
