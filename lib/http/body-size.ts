import type { MiddlewareObj, Request } from '@middy/core';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { PayloadTooLargeError } from '#lib/errors';
import { REQUEST_BODY_MAX_BYTES } from '#lib/limits';

/** The size of a request's body as the client sent it: a base64-encoded body counts decoded. */
function bodyBytes({ body, isBase64Encoded }: Pick<APIGatewayProxyEventV2, 'body' | 'isBase64Encoded'>) {
  if (body === undefined) return 0;
  return isBase64Encoded ? Math.floor((body.length * 3) / 4) : Buffer.byteLength(body);
}

/** 413 past the limit of every body (5 MiB, lib/limits.ts). */
export function ensureBodyWithinLimit(event: Pick<APIGatewayProxyEventV2, 'body' | 'isBase64Encoded'>): void {
  if (bodyBytes(event) > REQUEST_BODY_MAX_BYTES) throw new PayloadTooLargeError(REQUEST_BODY_MAX_BYTES);
}

/**
 * For a route that takes any body, or none, and reads none of it (one-click unsubscribe, RFC 8058):
 * the body is still held to the limit of every body, 413 past it, before anything reads the request.
 */
export function bodyWithinLimit(): MiddlewareObj<APIGatewayProxyEventV2> {
  const bodyWithinLimitMiddlewareBefore = (request: Request<APIGatewayProxyEventV2>) =>
    ensureBodyWithinLimit(request.event);
  return { before: bodyWithinLimitMiddlewareBefore };
}
