import type { MiddlewareObj, Request } from '@middy/core';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { type ErrorCode, ServiceError } from '#lib/errors';
import { jsonResponse } from '#lib/http/responses';
import { log } from '#lib/log';

/** The one place where a failure becomes an HTTP status. */
export const statusByCode: Record<ErrorCode, number> = {
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
  internal: 500,
  unavailable: 503,
};

/** DynamoDB's ways of saying "slow down" or "try again": the request is safe to repeat. */
const retryableStorageErrors = new Set([
  'ProvisionedThroughputExceededException',
  'ThrottlingException',
  'RequestLimitExceeded',
  'InternalServerError',
  'ServiceUnavailable',
  'TransactionConflictException',
  // Middy's early timeout: the function stopped before Lambda would have killed it.
  'TimeoutError',
]);

function toServiceError(error: unknown): ServiceError {
  if (error instanceof ServiceError) return error;
  const name = error instanceof Error ? error.name : '';
  if (retryableStorageErrors.has(name)) {
    return new ServiceError('unavailable', 'The service is busy; the request is safe to repeat');
  }
  return new ServiceError('internal', 'Internal server error');
}

export function errorHandler(): MiddlewareObj<APIGatewayProxyEventV2> {
  const errorHandlerMiddlewareOnError = (request: Request<APIGatewayProxyEventV2>) => {
    const failure = toServiceError(request.error);
    const status = statusByCode[failure.code];
    const requestId = request.event.requestContext?.requestId;
    // Only the error's name and code are logged: messages of foreign errors can carry request data.
    const fields = {
      requestId,
      status,
      code: failure.code,
      errorName: (request.error as Error | undefined)?.name,
    };
    if (status >= 500) log.error('request failed', fields);
    else log.info('request refused', fields);

    const body: Record<string, unknown> = { message: failure.message, code: failure.code };
    if (failure.problems.length > 0) body.errors = failure.problems;
    body.requestId = requestId;
    request.response = jsonResponse(status, body, status === 401 ? { 'www-authenticate': 'Bearer' } : {});
  };
  return { onError: errorHandlerMiddlewareOnError };
}
