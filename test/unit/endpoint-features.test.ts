/**
 * The endpoint's parts each route uses (lib/http/features.ts), which its function's bundle carries:
 * read from the route's own descriptor, and given to esbuild as defines (infra/bundling.ts).
 */
import { functionDefine, bundlingSettings } from '../../infra/bundling';
import { endpointFeatures, FEATURE_GLOBALS } from '../../lib/http/features';
import { checksBody, type RequestSchemas } from '../../lib/http/route';
import { routes, type RouteId } from '../../lib/routes';

it('reads the parts a route uses from its descriptor', () => {
  expect(endpointFeatures(routes.getHealth)).toEqual({
    jsonBody: false,
    validation: false,
    scope: false,
    storage: false,
    language: false,
  });
  expect(endpointFeatures(routes.getCompany)).toEqual({
    jsonBody: false,
    validation: true,
    scope: true,
    storage: true,
    language: false,
  });
  expect(endpointFeatures(routes.createList)).toEqual({
    jsonBody: true,
    validation: true,
    scope: true,
    storage: true,
    language: false,
  });
});

it('checks the body of every route whose method takes one, whether or not it reads one', () => {
  for (const id of Object.keys(routes) as RouteId[]) {
    const route = routes[id];
    expect({ id, jsonBody: endpointFeatures(route).jsonBody }).toEqual({ id, jsonBody: checksBody(route) });
    if ((route.request as RequestSchemas).body)
      expect({ id, jsonBody: endpointFeatures(route).jsonBody }).toEqual({ id, jsonBody: true });
  }
});

it("defines every part for a route's function, and none for a function without a route", () => {
  expect(functionDefine(routes.getHealth)).toEqual({
    ...bundlingSettings.define,
    [FEATURE_GLOBALS.jsonBody]: 'false',
    [FEATURE_GLOBALS.validation]: 'false',
    [FEATURE_GLOBALS.scope]: 'false',
    [FEATURE_GLOBALS.storage]: 'false',
    [FEATURE_GLOBALS.language]: 'false',
  });
  expect(functionDefine(routes.createList)).toMatchObject({
    [FEATURE_GLOBALS.jsonBody]: 'true',
    [FEATURE_GLOBALS.validation]: 'true',
  });
  expect(functionDefine(routes.getLegalEntityUpdates)).toMatchObject({ [FEATURE_GLOBALS.language]: 'true' });
  expect(functionDefine()).toEqual(bundlingSettings.define);
});
