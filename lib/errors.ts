import { RETRY_AFTER_SECONDS } from '#lib/timeouts';

/**
 * The failures the service can report, each with a stable `code` that clients can branch on.
 * Thrown by the domain and by the request plumbing; turned into an HTTP response in one place
 * (`lib/http/error-handler.ts`), so nothing here knows about status codes.
 */

export interface FieldProblem {
  /** Dotted path of the offending value, e.g. `recipients.3.email`; empty for the whole body. */
  path: string;
  message: string;
}

export type ErrorCode =
  | 'malformed_json'
  | 'validation_failed'
  | 'unsupported_recipient'
  | 'unresolvable_recipient'
  | 'unauthorized'
  | 'forbidden'
  | 'not_found'
  | 'conflict'
  | 'payload_too_large'
  | 'unsupported_media_type'
  | 'idempotency_key_mismatch'
  | 'too_many_requests'
  | 'internal'
  | 'unavailable';

export class ServiceError extends Error {
  readonly code: ErrorCode;
  readonly problems: FieldProblem[];

  constructor(code: ErrorCode, message: string, problems: FieldProblem[] = [], options?: ErrorOptions) {
    super(message, options);
    this.name = new.target.name;
    this.code = code;
    this.problems = problems;
  }
}

/** Renders `recipients.3.email` as `recipients[3].email`, the way a reader finds it in the request. */
function describePath(path: string): string {
  return path.replace(/\.(\d+)(?=\.|$)/g, '[$1]');
}

function summarize(problems: FieldProblem[]): string {
  const [first] = problems;
  if (!first) return 'The request is invalid';
  const lead = first.path ? `${describePath(first.path)}: ${first.message}` : first.message;
  return problems.length > 1 ? `${lead} (and ${problems.length - 1} more)` : lead;
}

export class ValidationError extends ServiceError {
  constructor(
    problems: FieldProblem[],
    code: 'validation_failed' | 'unresolvable_recipient' = 'validation_failed',
  ) {
    super(code, summarize(problems), problems);
  }
}

export class UnresolvableRecipientError extends ValidationError {
  constructor(problems: FieldProblem[]) {
    super(problems, 'unresolvable_recipient');
  }
}

export class UnsupportedRecipientError extends ServiceError {
  constructor(problems: FieldProblem[]) {
    super('unsupported_recipient', summarize(problems), problems);
  }
}

export class MalformedJsonError extends ServiceError {
  constructor() {
    super('malformed_json', 'The request body is not valid JSON');
  }
}

export class UnsupportedMediaTypeError extends ServiceError {
  constructor() {
    super('unsupported_media_type', 'The request body must be sent as application/json, in UTF-8');
  }
}

export class PayloadTooLargeError extends ServiceError {
  constructor(limitBytes: number) {
    super('payload_too_large', `The request body exceeds ${limitBytes} bytes`);
  }
}

export class UnauthorizedError extends ServiceError {
  constructor(message = 'A valid credential is required') {
    super('unauthorized', message);
  }
}

export class ForbiddenError extends ServiceError {
  constructor(message = 'This operation requires an administrator') {
    super('forbidden', message);
  }
}

export class NotFoundError extends ServiceError {
  constructor(what: string) {
    super('not_found', `${what} was not found`);
  }
}

export class ConflictError extends ServiceError {
  constructor(message: string) {
    super('conflict', message);
  }
}

/** An Idempotency-Key used again with another request body: the client has mixed up two requests. */
export class IdempotencyKeyMismatchError extends ServiceError {
  constructor() {
    super(
      'idempotency_key_mismatch',
      'This Idempotency-Key was used with a different request body; use a new key for a new request',
    );
  }
}

/** A request refused for coming too soon after another; nothing was done, and it may be sent again later. */
export class TooManyRequestsError extends ServiceError {
  readonly retryAfterSeconds: number;

  constructor(message: string, retryAfterSeconds: number) {
    super('too_many_requests', message);
    this.retryAfterSeconds = Math.max(1, Math.ceil(retryAfterSeconds));
  }
}

/**
 * An outage rather than a fault of the request: storage throttled, unreachable or silent past its
 * retries, signing keys that cannot be fetched, time running out. The message says why; the error
 * handler adds what a repeat of the route's request does. `cause` says what failed (logged, never
 * answered).
 */
export class UnavailableError extends ServiceError {
  readonly retryAfterSeconds: number;

  constructor(message = 'Storage is busy', options: { cause?: unknown; retryAfterSeconds?: number } = {}) {
    super('unavailable', message, [], { cause: options.cause });
    this.retryAfterSeconds = options.retryAfterSeconds ?? RETRY_AFTER_SECONDS;
  }
}
