import type { MiddlewareObj, Request } from '@middy/core';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { failureOf } from '#lib/http/error-handler';
import { logger } from '#lib/log';
import { recordRequest, tagOperation } from '#lib/metrics';
import { routeKey, routes } from '#lib/routes';
import type { StatusClass } from '#lib/telemetry-names';

const operationOf = new Map<string, string>(routes.map((route) => [routeKey(route), route.operation]));

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

/**
 * One log line per request (route, status, latency, and our request id on every line of the request),
 * and the request's metrics. A 5xx line carries the error with its stack and causes at error level; an
 * outage (503) is a warning; a refusal (4xx) is info and names only its code: the request's own data
 * stays out of the log.
 */
export function requestLog(): MiddlewareObj<APIGatewayProxyEventV2> {
  const started = new WeakMap<object, number>();

  const requestLogMiddlewareBefore = (request: Request<APIGatewayProxyEventV2>) => {
    started.set(request, performance.now());
    const { event } = request;
    const operation = operationOf.get(event.routeKey);
    logger.appendKeys({ requestId: event.requestContext?.requestId, operation });
    if (operation) tagOperation(operation);
  };

  const requestLogMiddlewareAfter = (request: Request<APIGatewayProxyEventV2>) => {
    const status = request.response?.statusCode ?? 200;
    const latencyMs = Math.round(performance.now() - (started.get(request) ?? performance.now()));
    recordRequest(statusClassOf(status), latencyMs);
    const fields = { route: request.event.routeKey, status, latencyMs };
    const failure = failureOf(request);
    if (!failure) {
      logger.info('request served', fields);
    } else if (status >= 500 && failure.answered.code === 'unavailable') {
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
