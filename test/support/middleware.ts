import middy, { type MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { lambdaContext } from '#lib/local/http-adapter';
import type { RouteFacts } from '#lib/routes';

/** An HTTP API (payload 2.0) event with only what a test states beyond the fixed request context. */
export function apiEvent(parts: Partial<APIGatewayProxyEventV2> = {}): APIGatewayProxyEventV2 {
  return {
    version: '2.0',
    routeKey: 'POST /test',
    rawPath: '/test',
    rawQueryString: '',
    headers: {},
    requestContext: {
      accountId: '000000000000',
      apiId: 'test',
      domainName: 'api.test.example',
      domainPrefix: 'api',
      http: { method: 'POST', path: '/test', protocol: 'HTTP/1.1', sourceIp: '127.0.0.1', userAgent: '' },
      requestId: 'request-1',
      routeKey: 'POST /test',
      stage: '$default',
      time: new Date(0).toUTCString(),
      timeEpoch: 0,
    },
    isBase64Encoded: false,
    ...parts,
  };
}

/**
 * Runs `event` through the middlewares alone (Middy, no other part of the chain) and resolves with
 * the event and context the operation would see; a middleware's refusal rejects with its error.
 */
export function throughMiddlewares(
  middlewares: MiddlewareObj<APIGatewayProxyEventV2>[],
  event: APIGatewayProxyEventV2,
): Promise<{ event: APIGatewayProxyEventV2; context: Context }> {
  const chain = middy<APIGatewayProxyEventV2, { event: APIGatewayProxyEventV2; context: Context }>();
  for (const middleware of middlewares) chain.use(middleware);
  return chain.handler(async (seen, context) => ({ event: seen, context }))(
    event,
    lambdaContext('test', 3_000, 'request-1'),
  );
}

/** Calls a handler as Lambda would, with `timeoutMs` left before the invocation is stopped. */
export function invoke(
  handler: (event: APIGatewayProxyEventV2, context: Context) => Promise<APIGatewayProxyStructuredResultV2>,
  event: APIGatewayProxyEventV2 = apiEvent(),
  timeoutMs = 3_000,
): Promise<APIGatewayProxyStructuredResultV2> {
  return handler(event, lambdaContext('test', timeoutMs, 'lambda-1'));
}

/** A route for handlers built in a test, counting one business metric. */
export const testRoute = {
  operation: 'test-operation',
  method: 'POST',
  path: '/v1/test',
  summary: 'A test route',
  timeoutSeconds: 10,
  memoryMiB: 1024,
  tableActions: [],
  repeat: 'safe',
  businessMetrics: ['ThingsDone'],
} as const satisfies RouteFacts;

/** The headers of every JSON answer, written out here rather than taken from the code under test. */
export const JSON_HEADERS = {
  'content-type': 'application/json',
  'cache-control': 'no-store',
  'x-content-type-options': 'nosniff',
};
