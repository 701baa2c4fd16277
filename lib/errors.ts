/**
 * What the domain refuses, in its own words and with the contract's messages (contract §2.1), but no
 * HTTP status: `asApiError` in lib/http/errors.ts is the one place that knows what each answers on the
 * wire. Storage has its own (lib/storage/errors.ts).
 */
export abstract class DomainError extends Error {
  /** What was refused: the HTTP mapping switches on it (so it needs no class, only this file's types). */
  abstract readonly refused: Refused['refused'];
}

export interface InvalidField {
  path: string;
  message: string;
}

/** Input the schema let through but the rules refuse (a bad company number, a SMART list's rules). */
export class InvalidInput extends DomainError {
  readonly refused = 'input';
  constructor(
    message: string,
    readonly details: InvalidField[],
  ) {
    super(message);
  }

  /** One offending field, e.g. ('Invalid company number', 'companyNumber', 'fails the BE format or checksum'). */
  static field(summary: string, path: string, message: string): InvalidInput {
    return new InvalidInput(summary, [{ path, message }]);
  }
}

export const COMPANY_NOT_FOUND = 'Company not found';
export const LEGAL_ENTITY_NOT_FOUND = 'Legal entity not found';

export class CompanyNotFound extends DomainError {
  readonly refused = 'company';
  constructor() {
    super(COMPANY_NOT_FOUND);
  }
}

export class LegalEntityNotFound extends DomainError {
  readonly refused = 'legal-entity';
  constructor() {
    super(LEGAL_ENTITY_NOT_FOUND);
  }
}

/** Absent, or not visible to the caller (another account's, or a colleague's unshared list). */
export class ListNotFound extends DomainError {
  readonly refused = 'list';
  constructor() {
    super('List not found');
  }
}

/** §7.6: only a list's creator shares or deletes it. */
export class NotListCreator extends DomainError {
  readonly refused = 'not-creator';
  constructor() {
    super("Only the list's creator may do this");
  }
}

/** §7.6: list names are unique in an account, case-insensitive. */
export class ListNameTaken extends DomainError {
  readonly refused = 'name-taken';
  constructor() {
    super('The account already has a list with this name');
  }
}

export class ListNotStatic extends DomainError {
  readonly refused = 'not-static';
  constructor() {
    super('Companies can only be added to static lists');
  }
}

/** The key was used with another request, or its first request is still running. */
export class IdempotencyKeyReused extends DomainError {
  readonly refused = 'key-reused';

  static differentRequest(): IdempotencyKeyReused {
    return new IdempotencyKeyReused('Idempotency-Key was already used with a different request');
  }

  static inProgress(): IdempotencyKeyReused {
    return new IdempotencyKeyReused(
      'A request with this Idempotency-Key is still in progress; retry later for its answer',
    );
  }
}

/** §2.1: an account's limit of a kind of thing (lists, webhook endpoints); the message names it. */
export class LimitReached extends DomainError {
  readonly refused = 'limit';
}

/** §2.1: an account's lists are capped (its 201st is refused). */
export class ListLimitReached extends LimitReached {
  constructor(limit: number) {
    super(`An account can have at most ${limit} lists`);
  }
}

/**
 * §7.6: an account's smart lists hold at most so many companies together (every state counts, a company
 * in two lists twice); a create or filter change that would pass it is refused.
 */
export class SmartListLimitReached extends LimitReached {
  constructor(limit: number) {
    super(`An account's smart lists can hold at most ${limit.toLocaleString('en-US')} companies`);
  }
}

/** A list kept changing under every retry: nothing half-done, the same request may be sent again. */
export class ListBusy extends DomainError {
  readonly refused = 'busy';
  constructor() {
    super('The list kept changing under every attempt');
  }
}

/** §12: an events cursor from before the 30 days events are kept. */
export class CursorExpired extends DomainError {
  readonly refused = 'cursor-expired';
  constructor() {
    super('This cursor is older than the 30 days events are kept; start again without after');
  }
}

/** §12: another account's webhook endpoint, or none. */
export class WebhookNotFound extends DomainError {
  readonly refused = 'webhook';
  constructor() {
    super('Webhook not found');
  }
}

/** §12: a second test delivery to an endpoint within the minute; another may be sent after `retryAfterSeconds`. */
export class TestDeliveryTooSoon extends DomainError {
  readonly refused = 'too-soon';
  constructor(readonly retryAfterSeconds: number) {
    super('A webhook endpoint can be sent at most one test delivery a minute');
  }
}

/** Every domain error, told apart by `refused`. */
export type Refused =
  | InvalidInput
  | CompanyNotFound
  | LegalEntityNotFound
  | ListNotFound
  | NotListCreator
  | ListNameTaken
  | ListNotStatic
  | IdempotencyKeyReused
  | ListBusy
  | CursorExpired
  | WebhookNotFound
  | TestDeliveryTooSoon
  | LimitReached;
