import type { MiddlewareObj, Request } from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { ServiceError, TooManyRequestsError, UnavailableError } from '#lib/errors';
import { jsonResponse } from '#lib/http/responses';
import { statusOf } from '#lib/http/statuses';
import { unavailableMessage } from '#lib/http/unavailable';
import type { RouteFacts } from '#lib/routes';

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
 * Turns every failure into the JSON error body: the error's code and message, the field problems, the
 * request id. Nothing of an unexpected error reaches the caller; the request log keeps it. A 503 says
 * why, then what a repeat of the route's request does (its `repeat` fact), and when to try again.
 */
export function errorHandler(
  route: Pick<RouteFacts, 'repeat'>,
): MiddlewareObj<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Error, Context, FailureRecord> {
  const errorHandlerMiddlewareOnError = (request: FailingRequest) => {
    const failure = toServiceError(request.error);
    request.internal.failure = { answered: failure, thrown: request.error };
    const status = statusOf[failure.code];
    const message =
      failure instanceof UnavailableError
        ? unavailableMessage(
            failure.message,
            route.repeat,
            request.event.headers?.['idempotency-key'] !== undefined,
          )
        : failure.message;
    const body: Record<string, unknown> = { message, code: failure.code };
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
