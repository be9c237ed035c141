import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { describeError } from '#lib/http/request-log';
import { securityHeaders } from '#lib/http/responses';
import { statusOf } from '#lib/http/statuses';
import { unavailableMessage } from '#lib/http/unavailable';
import { logger } from '#lib/log';
import { type Operation, type Route, routeKey, routes, timeoutSecondsOf } from '#lib/routes';
import { RETRY_AFTER_SECONDS } from '#lib/timeouts';

/**
 * A local stand-in for the API Gateway HTTP API: it matches the same route table, builds the same
 * payload-2.0 event, invokes the operation's Lambda handler in-process and writes its response.
 * Unknown paths and methods get API Gateway's own `404 {"message":"Not Found"}`.
 */

export type LambdaHandler = (
  event: APIGatewayProxyEventV2,
  context: Context,
) => Promise<APIGatewayProxyStructuredResultV2>;
export type ResolveHandler = (operation: Operation) => Promise<LambdaHandler>;

export interface LocalApiOptions {
  /** Pages served beside the API where no route matches (the local reference at /docs). */
  pages?: (method: string, path: string) => Promise<APIGatewayProxyStructuredResultV2 | undefined>;
  resolveHandler: ResolveHandler;
  /** The function timeout; by default the one the stack configures for the operation. */
  timeoutMs?: number;
}

/** API Gateway HTTP APIs refuse larger payloads themselves. */
const API_GATEWAY_MAX_PAYLOAD_BYTES = 10 * 1024 * 1024;

const compiled = routes.map((route) => ({
  route,
  names: Array.from(route.path.matchAll(/\{(\w+)\}/g), ([, name = '']) => name),
  pattern: new RegExp(`^${route.path.replace(/\{\w+\}/g, '([^/]+)')}$`),
}));

/** A route whose path matched, or the path parameter whose percent-encoding is malformed. */
type RouteMatch =
  | { route: Route; pathParameters: Record<string, string> }
  | { route: Route; malformedParameter: string };

export function matchRoute(method: string, path: string): RouteMatch | undefined {
  for (const { route, names, pattern } of compiled) {
    if (route.method !== method) continue;
    const match = pattern.exec(path);
    if (!match) continue;
    const pathParameters: Record<string, string> = {};
    for (const [i, name] of names.entries()) {
      try {
        pathParameters[name] = decodeURIComponent(match[i + 1] ?? '');
      } catch {
        return { route, malformedParameter: name };
      }
    }
    return { route, pathParameters };
  }
  return undefined;
}

/**
 * Headers as an HTTP API hands them on: names lower-cased, a header sent twice joined with commas.
 * Node keeps only the first `Authorization` of a request (`request.headers`); API Gateway joins both,
 * which no credential matches, so the distinct values are read here.
 */
function headersOf(request: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, values] of Object.entries(request.headersDistinct)) {
    if (values !== undefined) headers[name.toLowerCase()] = values.join(',');
  }
  return headers;
}

const textual = /^(application\/(json|.*\+json|x-www-form-urlencoded|xml)|text\/)/i;

/** The event exactly as an HTTP API (payload format 2.0) hands it to Lambda. */
export function buildEvent(
  request: { method: string; url: string; headers: Record<string, string>; body: Buffer; sourceIp?: string },
  route: Route,
  pathParameters: Record<string, string>,
): APIGatewayProxyEventV2 {
  const url = new URL(request.url, 'http://localhost');
  const now = new Date();
  const query: Record<string, string> = {};
  for (const [name, value] of url.searchParams)
    query[name] = name in query ? `${query[name]},${value}` : value;
  const isText = textual.test(request.headers['content-type'] ?? '');
  // API Gateway tells the function how the client connected; here the client spoke plain HTTP.
  const headers = { 'x-forwarded-proto': 'http', ...request.headers };
  const event: APIGatewayProxyEventV2 = {
    version: '2.0',
    routeKey: routeKey(route),
    rawPath: url.pathname,
    rawQueryString: url.search.slice(1),
    headers,
    requestContext: {
      accountId: '000000000000',
      apiId: 'local',
      domainName: request.headers.host ?? 'localhost',
      domainPrefix: (request.headers.host ?? 'localhost').split('.')[0] ?? '',
      http: {
        method: request.method,
        path: url.pathname,
        protocol: 'HTTP/1.1',
        sourceIp: request.sourceIp ?? '127.0.0.1',
        userAgent: request.headers['user-agent'] ?? '',
      },
      requestId: randomUUID(),
      routeKey: routeKey(route),
      stage: '$default',
      time: now.toUTCString(),
      timeEpoch: now.getTime(),
    },
    pathParameters,
    isBase64Encoded: request.body.length > 0 && !isText,
  };
  if (Object.keys(query).length > 0) event.queryStringParameters = query;
  if (request.headers.cookie) event.cookies = request.headers.cookie.split(/;\s*/);
  if (request.body.length > 0)
    event.body = isText ? request.body.toString('utf8') : request.body.toString('base64');
  return event;
}

export function lambdaContext(operation: string, timeoutMs: number, requestId: string): Context {
  const deadline = Date.now() + timeoutMs;
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName: operation,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:local:000000000000:function:${operation}`,
    memoryLimitInMB: '1024',
    awsRequestId: requestId,
    logGroupName: `/aws/lambda/${operation}`,
    logStreamName: 'local',
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => {},
    fail: () => {},
    succeed: () => {},
  };
}

function send(response: ServerResponse, result: APIGatewayProxyStructuredResultV2, requestId: string): void {
  const headers: Record<string, string> = { 'apigw-requestid': requestId, ...securityHeaders };
  for (const [name, value] of Object.entries(result.headers ?? {})) headers[name] = String(value);
  const body =
    result.body === undefined
      ? ''
      : result.isBase64Encoded
        ? Buffer.from(result.body, 'base64')
        : result.body;
  response.writeHead(result.statusCode ?? 200, headers);
  response.end(body);
}

/**
 * Errors raised before a handler runs (or by a function that could not), in the service's own error
 * shape (`message` is API Gateway's key) and with the status the error handler gives its code.
 */
const gatewayError = (
  code: 'validation_failed' | 'not_found' | 'payload_too_large' | 'internal' | 'unavailable',
  message: string,
  requestId: string = randomUUID(),
  errors?: { path: string; message: string }[],
): APIGatewayProxyStructuredResultV2 => ({
  statusCode: statusOf[code],
  headers: {
    'content-type': 'application/json',
    ...(code === 'unavailable' && { 'retry-after': String(RETRY_AFTER_SECONDS) }),
  },
  body: JSON.stringify({ message, code, ...(errors && { errors }), requestId }),
});

/**
 * Node refuses a request it cannot parse (a header section over 16 KiB, a malformed request line)
 * before any handler sees it, by default with an empty body; this answers 400 in the error shape.
 * A 400 rather than 431: every answer keeps to the service's status and code pairs.
 */
function refuseUnparsable(error: NodeJS.ErrnoException, socket: Duplex): void {
  if (!socket.writable || error.code === 'ECONNRESET') {
    socket.destroy();
    return;
  }
  const message =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? 'The request headers exceed 16384 bytes'
      : 'The request is not valid HTTP/1.1';
  const { body = '' } = gatewayError('validation_failed', message);
  socket.end(
    `HTTP/1.1 400 Bad Request\r\ncontent-type: application/json\r\ncache-control: no-store\r\nx-content-type-options: nosniff\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
  );
}

/**
 * The request's body, or undefined past API Gateway's limit. A body past it is still read to its end
 * and dropped: a server that stops reading mid-body resets the connection, and the client would meet
 * the reset instead of the 413 (and lose its kept-alive connection).
 */
async function readBody(request: IncomingMessage): Promise<Buffer | undefined> {
  const parts: Buffer[] = [];
  let size = 0;
  // Without an encoding set, a request's chunks are Buffers.
  for await (const part of request) {
    const chunk: Buffer = part;
    size += chunk.length;
    if (size <= API_GATEWAY_MAX_PAYLOAD_BYTES) parts.push(chunk);
    else parts.length = 0;
  }
  return size > API_GATEWAY_MAX_PAYLOAD_BYTES ? undefined : Buffer.concat(parts);
}

/**
 * The function's answer, or, once its timeout has passed (when Lambda would stop it), the 503 of an
 * unanswered request: the route's own message, as the function's error handler gives it.
 */
async function answerWithin(
  invocation: Promise<APIGatewayProxyStructuredResultV2>,
  route: Route,
  timeoutMs: number,
  requestId: string,
): Promise<APIGatewayProxyStructuredResultV2> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<APIGatewayProxyStructuredResultV2>((resolve) => {
    timer = setTimeout(
      () =>
        resolve(
          gatewayError(
            'unavailable',
            unavailableMessage('The function did not answer within its timeout', route.repeat),
            requestId,
          ),
        ),
      timeoutMs,
    );
  });
  try {
    return await Promise.race([invocation, timedOut]);
  } finally {
    clearTimeout(timer);
  }
}

export function createLocalApi({ resolveHandler, timeoutMs, pages }: LocalApiOptions): Server {
  const server = createServer(async (request, response) => {
    let requestId: string = randomUUID();
    let operation: Operation | undefined;
    try {
      const method = request.method ?? 'GET';
      const path = new URL(request.url ?? '/', 'http://localhost').pathname;
      const matched = matchRoute(method, path);
      const page = matched ? undefined : await pages?.(method, path);
      if (page) {
        request.resume();
        send(response, page, requestId);
        return;
      }
      // HEAD is a method of its own to API Gateway: no route declares it, so it is a 404 like any other.
      if (!matched) {
        request.resume();
        send(response, gatewayError('not_found', 'Not Found', requestId), requestId);
        return;
      }
      if ('malformedParameter' in matched) {
        request.resume();
        const problem = { path: matched.malformedParameter, message: 'is not validly percent-encoded' };
        send(
          response,
          gatewayError('validation_failed', `${problem.path}: ${problem.message}`, requestId, [problem]),
          requestId,
        );
        return;
      }
      const body = await readBody(request);
      if (!body) {
        send(
          response,
          gatewayError(
            'payload_too_large',
            `The request body exceeds ${API_GATEWAY_MAX_PAYLOAD_BYTES} bytes`,
            requestId,
          ),
          requestId,
        );
        return;
      }
      const event = buildEvent(
        {
          method,
          url: request.url ?? '/',
          headers: headersOf(request),
          body,
          sourceIp: request.socket.remoteAddress,
        },
        matched.route,
        matched.pathParameters,
      );
      requestId = event.requestContext.requestId;
      operation = matched.route.operation;
      const handler = await resolveHandler(operation);
      const functionTimeoutMs = timeoutMs ?? timeoutSecondsOf(matched.route) * 1000;
      const result = await answerWithin(
        handler(event, lambdaContext(operation, functionTimeoutMs, requestId)),
        matched.route,
        functionTimeoutMs,
        requestId,
      );
      send(response, result, requestId);
    } catch (error) {
      // A function that fails to load or throws past its own error handler: deployed, Lambda would
      // log the error and API Gateway answer 500; here the cause is logged and the body is ours.
      logger.error('function failed', { requestId, operation, error: describeError(error) });
      // The service's own 500 body, for a function that could not even be loaded or crashed.
      if (!response.headersSent)
        send(response, gatewayError('internal', 'Internal server error', requestId), requestId);
    }
  });
  server.on('clientError', refuseUnparsable);
  return server;
}
