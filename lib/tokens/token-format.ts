/**
 * What a bearer header looks like. API Gateway rejects anything else with 401 before the
 * authorizer runs (its validation regex); the local gateway applies the same pattern.
 * Tokens are `cd_` + 43 base64url characters (32 random bytes); the range leaves room for other kinds.
 */
export const BEARER_HEADER_PATTERN = '^Bearer [A-Za-z0-9_-]{20,128}$';

const bearerHeader = new RegExp(BEARER_HEADER_PATTERN);

/** The token from an `Authorization` header value, or null when the header is not a well-formed bearer. */
export function bearerToken(header: string | undefined): string | null {
  if (!header || !bearerHeader.test(header)) return null;
  return header.slice('Bearer '.length);
}
