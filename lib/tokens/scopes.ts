/** Contract §5: what a token may do. */
export const SCOPES = [
  'companies:read',
  'lists:read',
  'lists:write',
  'updates:read',
  'events:read',
  'webhooks:write',
] as const;
export type Scope = (typeof SCOPES)[number];

export function isScope(value: string): value is Scope {
  return (SCOPES as readonly string[]).includes(value);
}

/** A route any valid token may call, whatever its scopes (`GET /v1/usage`). */
export const ANY_SCOPE = 'any';
export type RouteScope = Scope | typeof ANY_SCOPE;
