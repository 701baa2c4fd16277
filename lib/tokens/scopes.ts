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
