import type { ErrorCode } from '#lib/errors';

/**
 * The one place where a failure's code becomes an HTTP status: the error handler answers with it, the
 * local adapter's own refusals (before any function runs) use it, and the API description lists the
 * statuses it yields.
 */
export const statusOf = {
  malformed_json: 400,
  validation_failed: 400,
  unsupported_recipient: 400,
  unresolvable_recipient: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  idempotency_key_mismatch: 422,
  too_many_requests: 429,
  internal: 500,
  unavailable: 503,
} as const satisfies Record<ErrorCode, number>;

/** Every status a failure can be answered with. */
export type ErrorStatus = (typeof statusOf)[ErrorCode];
