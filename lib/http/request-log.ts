import type { MiddlewareObj, Request } from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import type { FailureRecord } from '#lib/http/error-handler';
import { logger } from '#lib/log';
import { recordRequest, tagOperation } from '#lib/metrics';
import type { StatusClass } from '#lib/telemetry-names';

/** At most this many causes deep: a cycle of causes must not hang the log. */
const MAX_CAUSES = 5;

/**
 * An error as the log keeps it: class, message, stack and the chain of causes, and nothing else. Other
 * own properties are left out on purpose: an SDK error can carry the item it was about.
 */
export function describeError(error: unknown, depth = 0): Record<string, unknown> | string | undefined {
  if (error === undefined || error === null) return undefined;
  if (!(error instanceof Error)) return typeof error === 'object' ? 'non-Error object' : String(error);
  return {
    // Some libraries leave `name` at "Error"; their class says more.
    name: error.name === 'Error' ? error.constructor.name : error.name,
    message: error.message,
    stack: error.stack,
    cause: depth < MAX_CAUSES ? describeError(error.cause, depth + 1) : undefined,
  };
}

const statusClassOf = (status: number): StatusClass =>
  status >= 500 ? '5xx' : status >= 400 ? '4xx' : '2xx';

/** When the request began, and how it failed if it did (left there by the error handler). */
type LoggedRequest = FailureRecord & { startedAt?: number };
type RequestUnderLog = Request<
  APIGatewayProxyEventV2,
  APIGatewayProxyStructuredResultV2,
  Error,
  Context,
  LoggedRequest
>;

/**
 * One log line per request (route, status, latency, and our request id on every line of the request),
 * and the request's metrics. A 5xx line carries the error with its stack and causes at error level; an
 * outage (503) is a warning; a refusal (4xx) is info and names only its code: the request's own data
 * stays out of the log.
 */
export function requestLog(
  operation: string,
): MiddlewareObj<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Error, Context, LoggedRequest> {
  const requestLogMiddlewareBefore = (request: RequestUnderLog) => {
    request.internal.startedAt = performance.now();
    logger.appendKeys({ requestId: request.event.requestContext?.requestId, operation });
    tagOperation(operation);
  };

  const requestLogMiddlewareAfter = (request: RequestUnderLog) => {
    const status = request.response?.statusCode ?? 200;
    const latencyMs = Math.round(performance.now() - (request.internal.startedAt ?? performance.now()));
    recordRequest(statusClassOf(status), latencyMs);
    const fields = { route: request.event.routeKey, status, latencyMs };
    const { failure } = request.internal;
    if (!failure) {
      logger.info('request served', fields);
    } else if (failure.answered.code === 'unavailable') {
      logger.warn('request unavailable', {
        ...fields,
        code: failure.answered.code,
        error: describeError(failure.thrown),
      });
    } else if (status >= 500) {
      logger.error('request failed', {
        ...fields,
        code: failure.answered.code,
        error: describeError(failure.thrown),
      });
    } else {
      logger.info('request refused', {
        ...fields,
        code: failure.answered.code,
        errorName: failure.answered.name,
      });
    }
  };

  return {
    before: requestLogMiddlewareBefore,
    after: requestLogMiddlewareAfter,
    onError: requestLogMiddlewareAfter,
  };
}
