import type { MiddlewareObj, Request } from '@middy/core';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { type ErrorCode, ServiceError, TooManyRequestsError, UnavailableError } from '#lib/errors';
import { jsonResponse } from '#lib/http/responses';

/** The one place where a failure becomes an HTTP status. */
const statusByCode: Record<ErrorCode, number> = {
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
};

/** How a request failed: the answered error, and the one thrown (for the log only). */
interface Failure {
  answered: ServiceError;
  thrown: unknown;
}

const failures = new WeakMap<object, Failure>();

/** The failure of a request the error handler answered; read by the request log. */
export const failureOf = (request: Request<APIGatewayProxyEventV2>) => failures.get(request);

function toServiceError(error: unknown): ServiceError {
  if (error instanceof ServiceError) return error;
  return new ServiceError('internal', 'Internal server error');
}

/**
 * Turns every failure into the JSON error body: the error's code and message, the field problems, the
 * request id. Nothing of an unexpected error reaches the caller; the request log keeps it.
 */
export function errorHandler(): MiddlewareObj<APIGatewayProxyEventV2> {
  const errorHandlerMiddlewareOnError = (request: Request<APIGatewayProxyEventV2>) => {
    const failure = toServiceError(request.error);
    failures.set(request, { answered: failure, thrown: request.error });
    const status = statusByCode[failure.code];
    const body: Record<string, unknown> = { message: failure.message, code: failure.code };
    if (failure.problems.length > 0) body.errors = failure.problems;
    body.requestId = request.event.requestContext?.requestId;
    const headers: Record<string, string> = {};
    if (status === 401) headers['www-authenticate'] = 'Bearer';
    if (failure instanceof UnavailableError || failure instanceof TooManyRequestsError)
      headers['retry-after'] = String(failure.retryAfterSeconds);
    request.response = jsonResponse(status, body, headers);
  };
  return { onError: errorHandlerMiddlewareOnError };
}
