/**
 * Valid values from an operation's schemas, with values that name something real on the stage where a
 * parameter's or field's name says what it is (a company number, a list id, a VAT number as people write it).
 */
import fc from 'fast-check';
import type { FuzzContext, Schema } from './operations';

/** Values that name something real on the stage, by parameter or field name. */
function hints(context: FuzzContext): Record<string, fc.Arbitrary<unknown>> {
  const company = fc.constantFrom(...context.companies);
  const present = (values: Array<string | null | undefined>) =>
    values.filter((value): value is string => typeof value === 'string' && value.length > 0);
  const names = present(context.companies.map((c) => c.name));
  const vatNumbers = present(context.companies.map((c) => c.vatNumber));
  const websites = present(context.companies.map((c) => c.website));
  const places = present(context.companies.map((c) => c.place));
  return {
    countryCode: fc.oneof(
      { weight: 4, arbitrary: company.map((c) => c.country) },
      { weight: 1, arbitrary: fc.constantFrom('be', 'Nl', 'DE', 'XX', '') },
    ),
    country: company.map((c) => c.country),
    companyNumber: fc.oneof(
      { weight: 4, arbitrary: company.map((c) => c.companyNumber) },
      { weight: 1, arbitrary: fc.constantFrom('0403.170.701', 'BE0403170701', '403170701', '123', '') },
    ),
    id: fc.oneof(
      { weight: 4, arbitrary: fc.constantFrom(...context.listIds, ...(context.webhookIds ?? [])) },
      fc.constantFrom('999999', '0'),
    ),
    legalEntityId: fc.oneof(
      { weight: 4, arbitrary: fc.constantFrom(...context.legalEntityIds) },
      { weight: 1, arbitrary: fc.stringMatching(/^\d{10,12}$/) },
    ),
    // A webhook URL: the local stage's own machine (accepted), or one the rules refuse without resolving a
    // name (no fuzzed request makes a DNS lookup or a connection).
    url: fc.oneof(
      { weight: 3, arbitrary: fc.constantFrom('http://127.0.0.1:9/hook', 'http://localhost:9/in') },
      fc.constantFrom('https://10.0.0.1/x', 'https://169.254.169.254/', 'ftp://localhost/', 'http://[::1]/'),
    ),
    // A state move (PATCH /v1/lists/{id}/companies), checked by hand: its fields come from here.
    state: fc.constantFrom('SAVED', 'ARCHIVED', 'NEW'),
    // A search (§6.5): a name whole or by word prefixes, a number or VAT number in an input form, and
    // now and then one the rules refuse (under 2 or over 100 characters once trimmed).
    q: fc.oneof(
      { weight: 3, arbitrary: known(names).chain(wordPrefixes) },
      { weight: 2, arbitrary: known(names) },
      { weight: 2, arbitrary: company.map((c) => c.companyNumber) },
      { weight: 1, arbitrary: known(vatNumbers).map(withSpaces) },
      fc.constantFrom(' a ', 'x', '  ', 'é'.repeat(101), `  ${'bakkerij '.repeat(11).trim()}  `),
    ),
    // Match entries (§6.5) and list entries (§7.5): what a customer's CRM holds of a company.
    name: fc.oneof(
      { weight: 4, arbitrary: known(names) },
      {
        weight: 2,
        arbitrary: known(names).map((n) => n.toUpperCase().replace(/\s+(NV|BV|SRL|SAS|SA)$/, '')),
      },
      fc.constantFrom('Zyxqua Qwortel', 'x'.repeat(201), ''),
    ),
    VAT: fc.oneof(
      { weight: 4, arbitrary: known(vatNumbers).chain((vat) => fc.constantFrom(vat, withSpaces(vat))) },
      fc.constantFrom('BE0403170702', 'NL000000000B01', 'FR00000000000', ''),
    ),
    website: fc.oneof(
      { weight: 4, arbitrary: known(websites) },
      { weight: 1, arbitrary: known(websites).map((w) => w.replace(/^https?:\/\/(www\.)?/, '')) },
      fc.constantFrom('not a url', 'https://example.com/contact', ''),
    ),
    place: fc.oneof(
      { weight: 4, arbitrary: known(places) },
      fc.constantFrom('Gent', 'Amsterdam', 'Lyon', 'x'.repeat(201)),
    ),
  };
}

/** One of the values the stage's companies have, or text when none is known. */
function known(values: string[]): fc.Arbitrary<string> {
  return values.length > 0 ? fc.constantFrom(...values) : fc.string({ minLength: 2, maxLength: 20 });
}

/** A name's words, each cut to a prefix of 2 or more letters (a prefix of each word is enough, §6.5). */
const wordPrefixes = (name: string): fc.Arbitrary<string> =>
  fc
    .tuple(
      ...name.split(/\s+/).map((word) => fc.integer({ min: Math.min(2, word.length), max: word.length })),
    )
    .map((lengths) =>
      name
        .split(/\s+/)
        .map((word, i) => word.slice(0, lengths[i]))
        .join(' '),
    );

/** `BE0403170701` as people write it: `BE 0403.170.701`. */
const withSpaces = (vat: string) => vat.replace(/^([A-Z]{2})(\d{4})(\d{3})(\d{3})$/, '$1 $2.$3.$4');

export function valueOf(schema: Schema, context: FuzzContext, name?: string): fc.Arbitrary<unknown> {
  const hint = name !== undefined ? hints(context)[name] : undefined;
  if (hint) return hint;
  if (schema.const !== undefined) return fc.constant(schema.const);
  if (Array.isArray(schema.enum)) return fc.constantFrom(...(schema.enum as unknown[]));
  if (Array.isArray(schema.anyOf))
    return fc.oneof(...(schema.anyOf as Schema[]).map((s) => valueOf(s, context)));
  switch (schema.type) {
    case 'integer': {
      const min = (schema.minimum as number | undefined) ?? -1000;
      const max = (schema.maximum as number | undefined) ?? 1000;
      return fc.oneof(fc.constantFrom(min, max), fc.integer({ min, max: Math.min(max, min + 20) }));
    }
    case 'number':
      return fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e6, max: 1e6 });
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'string':
      if (schema.format === 'date') return fc.constantFrom('2024-01-31', '2023-12-31');
      if (typeof schema.pattern === 'string') return fc.stringMatching(new RegExp(schema.pattern));
      return fc.string({ maxLength: 20 });
    case 'array': {
      const items = (schema.items as Schema | undefined) ?? {};
      const minLength = (schema.minItems as number | undefined) ?? 0;
      const maxLength = Math.max(minLength, Math.min((schema.maxItems as number | undefined) ?? 4, 4));
      return fc.array(valueOf(items, context), { minLength, maxLength });
    }
    case 'object': {
      // An object the schema checks by hand (no properties named): made of the fields the hints know.
      if (!schema.properties) {
        const known = hints(context);
        return fc.record(known, { requiredKeys: [] });
      }
      const properties = (schema.properties ?? {}) as Record<string, Schema>;
      const required = (schema.required as string[] | undefined) ?? [];
      return fc.record(
        Object.fromEntries(Object.entries(properties).map(([key, s]) => [key, valueOf(s, context, key)])),
        { requiredKeys: required.filter((key) => key in properties) },
      );
    }
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}
