/**
 * Contract audit of answer shapes: the OpenAPI document that the gateway serves (GET /v1/openapi.json)
 * and that every answer of the end-to-end tests is checked against (test/support/openapi.ts) is made
 * from the route table's schemas. Here it is held to the contract's own key lists (test/support/contract.ts),
 * object by object, so the schemas cannot drift from the contract (a field renamed, added, dropped or
 * moved) while the answers still agree with the schemas.
 */
import { LIST_KEYS, PERIOD_KEYS, SHAPE_KEYS as K } from '../support/contract';
import { contract } from '../support/openapi';

type Schema = Record<string, unknown>;

function at(pointer: string): Schema {
  let node: unknown = contract;
  for (const part of pointer.replace(/^#\//, '').split('/')) {
    node = (node as Record<string, unknown>)[part.replace(/~1/g, '/').replace(/~0/g, '~')];
  }
  return node as Schema;
}

const deref = (schema: Schema): Schema => (typeof schema.$ref === 'string' ? deref(at(schema.$ref)) : schema);

const branches = (schema: Schema) => (schema.anyOf ?? schema.oneOf) as Schema[] | undefined;

/** The object branch of a schema (a nullable object or a union: the first branch with properties, or branch `n`). */
function objectOf(schema: Schema, branch?: number): Schema {
  const s = deref(schema);
  const options = branches(s);
  if (!options) return s;
  const objects = options.map(deref).filter((o) => o.properties || branches(o));
  return objectOf(objects[branch ?? 0]!);
}

/** The array branch of a schema (a nullable array: `data` of a match item). */
function arrayOf(schema: Schema): Schema {
  const s = deref(schema);
  return (
    branches(s)
      ?.map(deref)
      .find((o) => o.items) ?? s
  );
}

/**
 * The keys, in order, of the object `steps` lead to in the answer `status` of `method path`: a key
 * name goes into that property, `[]` into an array's items, `|n` takes branch n of a union.
 */
function keysAt(method: string, path: string, status: number, ...steps: string[]): string[] {
  const response = deref(
    at(`#/paths/${path.replace(/\//g, '~1')}/${method.toLowerCase()}/responses/${status}`),
  );
  let schema = (response.content as Record<string, { schema: Schema }>)['application/json']!.schema;
  let branch: number | undefined;
  for (const step of steps) {
    if (step.startsWith('|')) {
      branch = Number(step.slice(1));
      continue;
    }
    const next =
      step === '[]' ? arrayOf(schema).items : (objectOf(schema, branch).properties as Schema)[step];
    if (!next) throw new Error(`${method} ${path} ${status}: no ${step} in ${steps.join(' ')}`);
    schema = next as Schema;
    branch = undefined;
  }
  return Object.keys(objectOf(schema, branch).properties as Schema);
}

const company = '/v1/companies/{countryCode}/{companyNumber}';

describe('every object of an answer has exactly the contract’s keys, in its order', () => {
  it.each([
    // §2.1: the error body, on a route that validates input, on a bulk one and on one that may 404.
    ['GET', `${company}/financials`, 400, [], K.error],
    ['GET', `${company}/financials`, 400, ['details', '[]'], K.errorDetail],
    ['POST', '/v1/legal-entities/updates', 400, [], K.error],
    ['GET', '/v1/lists/{id}', 404, [], K.error],
    // §6.1
    ['GET', `${company}/financials`, 200, [], K.companyFinancials],
    ['GET', `${company}/financials`, 200, ['identifier'], K.identifier],
    ['GET', `${company}/financials`, 200, ['data', '[]'], PERIOD_KEYS.period],
    ['GET', `${company}/financials`, 200, ['data', '[]', 'profitability'], PERIOD_KEYS.profitability],
    ['GET', `${company}/financials`, 200, ['data', '[]', 'liquidity'], PERIOD_KEYS.liquidity],
    ['GET', `${company}/financials`, 200, ['data', '[]', 'solvency'], PERIOD_KEYS.solvency],
    ['GET', `${company}/financials`, 200, ['data', '[]', 'people'], PERIOD_KEYS.people],
    ['GET', `${company}/financials`, 200, ['pagination'], K.pagination],
    ['POST', '/v1/companies/financials', 200, ['[]', '|0'], K.bulkFinancialsItem],
    ['POST', '/v1/companies/financials', 200, ['[]', '|1'], K.bulkFinancialsItem],
    ['POST', '/v1/companies/financials', 200, ['[]', '|1', 'identifier'], K.failedIdentifier],
    // §6.2
    ['GET', `${company}/relationships`, 200, [], K.companyRelationships],
    ['GET', `${company}/relationships`, 200, ['data'], K.relationships],
    ['GET', `${company}/relationships`, 200, ['data', 'parents', '[]'], K.relationship],
    ['GET', `${company}/relationships`, 200, ['data', 'children', '[]'], K.relationship],
    ['GET', `${company}/relationships`, 200, ['data', 'parents', '[]', 'identifier'], K.identifier],
    ['POST', '/v1/companies/relationships', 200, ['[]', '|0'], K.bulkItem],
    ['POST', '/v1/companies/relationships', 200, ['[]', '|1'], K.bulkItem],
    // §6.3
    ['GET', `${company}/lookalikes`, 200, [], K.companyFinancials],
    ['GET', `${company}/lookalikes`, 200, ['data', '[]'], K.lookalike],
    ['GET', `${company}/lookalikes`, 200, ['data', '[]', 'companyId'], K.companyId],
    ['POST', '/v1/companies/lookalikes', 200, ['[]', '|0'], K.bulkItem],
    ['POST', '/v1/companies/lookalikes', 200, ['[]', '|1'], K.bulkItem],
    // §6.4
    ['GET', `${company}/legal-entities`, 200, [], K.companyFinancials],
    ['GET', `${company}/legal-entities`, 200, ['data', '[]'], K.legalEntity],
    // §6.5
    ['GET', company, 200, [], K.companyRelationships],
    ['GET', company, 200, ['data'], K.companyDetails],
    ['GET', company, 200, ['data', 'address'], K.address],
    ['POST', '/v1/companies', 200, ['[]', '|0'], K.bulkItem],
    ['POST', '/v1/companies', 200, ['[]', '|0', 'data'], K.companyDetails],
    ['POST', '/v1/companies', 200, ['[]', '|1'], K.bulkItem],
    ['GET', `${company}/contacts`, 200, [], K.companyFinancials],
    ['GET', `${company}/contacts`, 200, ['data', '[]'], K.companyContact],
    ['GET', `${company}/contacts`, 200, ['data', '[]', 'identifier'], K.contactIdentifier],
    ['GET', '/v1/companies', 200, ['[]'], K.identifier],
    ['POST', '/v1/companies/match', 200, ['[]'], K.matchItem],
    ['POST', '/v1/companies/match', 200, ['[]', 'data', '[]'], K.matchCandidate],
    ['POST', '/v1/companies/match', 200, ['[]', 'data', '[]', 'identifier'], K.identifier],
    // §7.2, §7.6
    ['GET', '/v1/lists', 200, ['data', '[]'], LIST_KEYS],
    ['GET', '/v1/lists', 200, ['pagination'], K.pagination],
    ['GET', '/v1/lists/{id}', 200, [], LIST_KEYS],
    ['POST', '/v1/lists', 201, [], LIST_KEYS],
    ['PATCH', '/v1/lists/{id}', 200, [], LIST_KEYS],
    // §7.3, §7.4
    ['GET', '/v1/lists/{id}/companies', 200, ['data', '[]'], K.listCompany],
    ['GET', '/v1/lists/{id}/companies', 200, ['data', '[]', 'identifier'], K.identifier],
    ['GET', '/v1/lists/{id}/contacts', 200, ['data', '[]'], K.listContact],
    ['GET', '/v1/lists/{id}/contacts', 200, ['data', '[]', 'identifier'], K.contactIdentifier],
    ['GET', '/v1/lists/{id}/contacts', 200, ['data', '[]', 'company'], K.identifier],
    // §7.5, §7.6
    ['PUT', '/v1/lists/{id}/companies', 200, [], K.addResult],
    ['PUT', '/v1/lists/{id}/companies', 200, ['failed', '[]'], K.failedEntry],
    ['PATCH', '/v1/lists/{id}/companies', 200, [], K.moveResult],
    ['PATCH', '/v1/lists/{id}/companies', 200, ['failed', '[]'], K.failedEntry],
    // §8.1
    ['GET', '/v1/legal-entities/{legalEntityId}/updates', 200, [], K.legalEntityUpdates],
    ['GET', '/v1/legal-entities/{legalEntityId}/updates', 200, ['identifier'], K.legalEntity],
    ['GET', '/v1/legal-entities/{legalEntityId}/updates', 200, ['data'], K.updates],
    ['GET', '/v1/legal-entities/{legalEntityId}/updates', 200, ['data', 'updates', '[]'], K.update],
    ['POST', '/v1/legal-entities/updates', 200, ['[]', '|0'], K.bulkUpdatesItem],
    ['POST', '/v1/legal-entities/updates', 200, ['[]', '|1'], K.bulkUpdatesItem],
    ['POST', '/v1/legal-entities/updates', 200, ['[]', '|1', 'identifier'], ['legalEntityId']],
    // §10
    ['GET', '/v1/health', 200, [], K.health],
    // §12
    ['GET', '/v1/events', 200, [], K.eventsPage],
    ['GET', '/v1/events', 200, ['data', '[]'], K.event],
    ['GET', '/v1/events', 200, ['data', '[]', 'data'], K.eventData],
    ['GET', '/v1/events', 200, ['data', '[]', 'data', 'company'], K.identifier],
    ['GET', '/v1/events', 200, ['data', '[]', 'data', 'update'], K.update],
    ['POST', '/v1/webhooks', 201, [], K.createdWebhook],
    ['GET', '/v1/webhooks', 200, ['data', '[]'], K.webhook],
    ['GET', '/v1/webhooks/{id}', 200, [], K.webhook],
    ['PATCH', '/v1/webhooks/{id}', 200, [], K.webhook],
    ['POST', '/v1/webhooks/{id}/rotate-secret', 200, [], K.secret],
    ['GET', '/v1/webhooks/{id}/deliveries', 200, ['data', '[]'], K.delivery],
    ['GET', '/v1/webhooks/{id}/deliveries', 200, ['pagination'], K.pagination],
    // §13
    ['GET', '/v1/usage', 200, [], K.usage],
    ['GET', '/v1/usage', 200, ['plan'], K.plan],
    ['GET', '/v1/usage', 200, ['today'], K.today],
  ] as const)('%s %s %i %j', (method, path, status, steps, keys) => {
    expect(keysAt(method, path, status, ...steps)).toEqual(keys);
  });
});
