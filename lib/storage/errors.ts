/**
 * What storage can say went wrong, in storage's own words: the HTTP layer decides what a caller sees
 * (lib/http/errors.ts maps StorageUnavailableError to 503 UNAVAILABLE).
 */

/** Storage throttled, timed out or unreachable after the retries: try again later. */
export class StorageUnavailableError extends Error {
  override readonly name = 'StorageUnavailableError';
  constructor(options?: ErrorOptions) {
    super('Storage is throttled or unreachable', options);
  }
}
