/**
 * What a bearer header looks like. API Gateway rejects anything else with 401 before the
 * authorizer runs (its validation regex); the local gateway applies the same pattern.
 * Tokens are `cd_` + 43 base64url characters (32 random bytes); the range leaves room for other kinds.
 * The scheme's name is case-insensitive (RFC 9110 §11.1: `bearer` is `Bearer`). The pattern spells
 * that out letter by letter: API Gateway's validation expression and the firewall's regex take no flags.
 */
export const BEARER_HEADER_PATTERN = '^[Bb][Ee][Aa][Rr][Ee][Rr] [A-Za-z0-9_-]{20,128}$';

const bearerHeader = new RegExp(BEARER_HEADER_PATTERN);

/** The token from an `Authorization` header value, or null when the header is not a well-formed bearer. */
export function bearerToken(header: string | undefined): string | null {
  if (!header || !bearerHeader.test(header)) return null;
  return header.slice('Bearer '.length);
}
