import { DomainError, type Refused } from '../errors';
import { StorageUnavailableError } from '../storage/errors';

/**
 * The error hierarchy: each class pins its status and contract code (contract §2.1). `asApiError` is
 * the one mapping from the domain's errors (lib/errors.ts) and storage's to these; `toErrorBody` turns
 * any of them into the contract's body. Anything else becomes a bare 500 so no internal text ever
 * leaves the process.
 */
export interface ErrorDetail {
  path: string;
  message: string;
}

export interface ErrorBody {
  message: string;
  code: string;
  requestId: string;
  details?: ErrorDetail[];
}

export abstract class ApiError extends Error {
  abstract readonly status: number;
  abstract readonly code: string;
  /** Extra response headers (Retry-After, Allow). */
  readonly headers: Record<string, string> = {};
}

export class InvalidJsonError extends ApiError {
  readonly status = 400;
  readonly code = 'INVALID_JSON';
  constructor() {
    super('Request body is not valid JSON');
  }
}

export class ValidationError extends ApiError {
  readonly code = 'VALIDATION_ERROR';
  readonly status = 400;
  constructor(
    message: string,
    readonly details: ErrorDetail[],
  ) {
    super(message);
  }

  /** One offending field, e.g. ('Invalid company number', 'companyNumber', 'fails the BE format or checksum'). */
  static field(summary: string, path: string, message: string): ValidationError {
    return new ValidationError(summary, [{ path, message }]);
  }
}

export class UnauthorizedError extends ApiError {
  readonly status = 401;
  readonly code = 'UNAUTHORIZED';
  constructor() {
    super('Unauthorized');
    // RFC 9110 §11.6.1: a 401 names the scheme it wants (RFC 6750: Bearer).
    this.headers['WWW-Authenticate'] = 'Bearer';
  }
}

export class ForbiddenError extends ApiError {
  readonly status = 403;
  readonly code = 'FORBIDDEN';
  /** Without a scope: the gateway's own denial, which cannot name one. */
  constructor(scope?: string) {
    super(scope ? `This token lacks the scope ${scope}` : 'Forbidden');
  }

  /** A caller who may see the thing but not do this to it (§7.6: only a list's creator deletes it). */
  static because(message: string): ForbiddenError {
    const error = new ForbiddenError();
    error.message = message;
    return error;
  }
}

export class NotFoundError extends ApiError {
  readonly status = 404;
  readonly code = 'NOT_FOUND';
}

/** No route has this path (API Gateway and the local gateway answer it; handlers never do). */
export class RouteNotFoundError extends NotFoundError {
  constructor() {
    super('Route not found');
  }
}

export class MethodNotAllowedError extends ApiError {
  readonly status = 405;
  readonly code = 'METHOD_NOT_ALLOWED';
  constructor(allowed: string[]) {
    super('Method not allowed');
    this.headers['Allow'] = allowed.join(', ');
  }
}

export type ConflictCode = 'LIST_NOT_STATIC' | 'LIST_NAME_TAKEN' | 'IDEMPOTENCY_KEY_REUSED' | 'LIMIT_REACHED';

export class ConflictError extends ApiError {
  readonly status = 409;
  constructor(
    readonly code: ConflictCode,
    message: string,
  ) {
    super(message);
  }
}

/** §12: what the request points at is gone for good (an events cursor past the 30 days kept). */
export class GoneError extends ApiError {
  readonly status = 410;
  readonly code = 'CURSOR_EXPIRED';
}

export class PayloadTooLargeError extends ApiError {
  readonly status = 413;
  readonly code = 'PAYLOAD_TOO_LARGE';
  constructor() {
    super('Request body must be at most 1 MiB');
  }
}

export class UnsupportedMediaTypeError extends ApiError {
  readonly status = 415;
  readonly code = 'UNSUPPORTED_MEDIA_TYPE';
  constructor() {
    super('Content-Type must be application/json');
  }
}

export class ThrottledError extends ApiError {
  readonly status = 429;
  readonly code = 'THROTTLED';
  constructor(retryAfterSeconds = 1, message = 'Too many requests') {
    super(message);
    this.headers['Retry-After'] = String(retryAfterSeconds);
  }
}

export class InternalError extends ApiError {
  readonly status = 500;
  readonly code = 'INTERNAL';
  constructor() {
    super('Internal server error');
  }
}

/**
 * Storage throttled, timed out or unreachable after the SDK's retries: nothing was half-written, and the
 * same request may be sent again after `Retry-After` seconds. Answers made per request wait 2 to 5 s,
 * at random, so callers turned away together do not come back together.
 */
export class UnavailableError extends ApiError {
  readonly status = 503;
  readonly code = 'UNAVAILABLE';
  constructor(retryAfterSeconds = jitteredRetryAfter()) {
    super('Service unavailable, retry later');
    this.headers['Retry-After'] = String(retryAfterSeconds);
  }
}

export const RETRY_AFTER_MIN_SECONDS = 2;
export const RETRY_AFTER_MAX_SECONDS = 5;
/** API Gateway's own 503 answers are fixed text (no per-answer randomness there): the middle of the range. */
export const GATEWAY_RETRY_AFTER_SECONDS = 3;

function jitteredRetryAfter(): number {
  const span = RETRY_AFTER_MAX_SECONDS - RETRY_AFTER_MIN_SECONDS + 1;
  return RETRY_AFTER_MIN_SECONDS + Math.floor(Math.random() * span);
}

/**
 * Any error → an ApiError fit to show a caller: the domain's refusals as the contract answers them,
 * storage trouble 503, anything unexpected a bare 500.
 */
export function asApiError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  if (error instanceof DomainError) return fromDomainError(error as Refused);
  return error instanceof StorageUnavailableError ? new UnavailableError() : new InternalError();
}

/** Whether the contract answers this error (anything else is logged as unhandled). */
export const isExpected = (error: unknown): boolean =>
  error instanceof ApiError || error instanceof DomainError;

function fromDomainError(error: Refused): ApiError {
  const { message } = error;
  switch (error.refused) {
    case 'input':
      return new ValidationError(message, error.details);
    case 'company':
    case 'legal-entity':
    case 'list':
    case 'webhook':
      return new NotFoundError(message);
    case 'cursor-expired':
      return new GoneError(message);
    case 'limit':
      return new ConflictError('LIMIT_REACHED', message);
    case 'not-creator':
      return ForbiddenError.because(message);
    case 'name-taken':
      return new ConflictError('LIST_NAME_TAKEN', message);
    case 'not-static':
      return new ConflictError('LIST_NOT_STATIC', message);
    case 'key-reused':
      return new ConflictError('IDEMPOTENCY_KEY_REUSED', message);
    case 'too-soon':
      return new ThrottledError(error.retryAfterSeconds, message);
    case 'busy':
      // Retried and still changing: nothing was half-done, the same request may come again.
      return new UnavailableError();
  }
}

export function toErrorBody(error: ApiError, requestId: string): ErrorBody {
  const body: ErrorBody = { message: error.message, code: error.code, requestId };
  if (error instanceof ValidationError) body.details = error.details;
  return body;
}
