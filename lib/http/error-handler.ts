import type { MiddlewareObj, Request } from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { ServiceError, TooManyRequestsError, UnavailableError } from '#lib/errors';
import { jsonResponse } from '#lib/http/responses';
import { statusOf } from '#lib/http/statuses';

/** How a request failed: the answered error, and the one thrown (for the log only). */
interface Failure {
  answered: ServiceError;
  thrown: unknown;
}

/** What the error handler leaves in Middy's `request.internal` for the middlewares after it (the request log). */
export type FailureRecord = { failure?: Failure };

type FailingRequest = Request<
  APIGatewayProxyEventV2,
  APIGatewayProxyStructuredResultV2,
  Error,
  Context,
  FailureRecord
>;

function toServiceError(error: unknown): ServiceError {
  if (error instanceof ServiceError) return error;
  return new ServiceError('internal', 'Internal server error');
}

/**
 * A 503 of a request that took no Idempotency-Key where it could: repeating it may do it twice, so
 * the answer says how to repeat it safely instead of that repeating is safe.
 */
const repeatWithKey = (failure: UnavailableError) =>
  new UnavailableError(
    'The service is busy; the request may have been done: repeat it with an Idempotency-Key so that it is done once',
    { cause: failure.cause, retryAfterSeconds: failure.retryAfterSeconds },
  );

/**
 * Turns every failure into the JSON error body: the error's code and message, the field problems, the
 * request id. Nothing of an unexpected error reaches the caller; the request log keeps it.
 */
export function errorHandler(
  options: { takesIdempotencyKey?: boolean } = {},
): MiddlewareObj<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Error, Context, FailureRecord> {
  const errorHandlerMiddlewareOnError = (request: FailingRequest) => {
    const thrown = toServiceError(request.error);
    const unkeyed = options.takesIdempotencyKey && request.event.headers?.['idempotency-key'] === undefined;
    const failure = unkeyed && thrown instanceof UnavailableError ? repeatWithKey(thrown) : thrown;
    request.internal.failure = { answered: failure, thrown: request.error };
    const status = statusOf[failure.code];
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
