import type { MiddlewareObj, Request } from '@middy/core';
import httpJsonBodyParser from '@middy/http-json-body-parser';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { MalformedJsonError, PayloadTooLargeError, UnsupportedMediaTypeError } from '#lib/errors';

export const MAX_BODY_BYTES = 5 * 1024 * 1024;

interface JsonBodyOptions {
  /** An optional body that is absent or empty reads as `{}` (the contract's rule for optional bodies). */
  optional: boolean;
}

/**
 * Middy's JSON parser, with the contract's answers: 413 past 5 MiB, 415 for a non-JSON content type,
 * 400 `malformed_json` (Middy says 422) for a body that does not parse.
 */
export function jsonBody({ optional }: JsonBodyOptions): MiddlewareObj<APIGatewayProxyEventV2> {
  const parser = httpJsonBodyParser();
  const parse = parser.before as (request: Request<APIGatewayProxyEventV2>) => void;

  const jsonBodyMiddlewareBefore = (request: Request<APIGatewayProxyEventV2>) => {
    const { body, isBase64Encoded } = request.event;
    if (body === undefined || body === '') {
      if (optional) {
        (request.event as { body: unknown }).body = {};
        return;
      }
      throw new MalformedJsonError();
    }
    const bytes = isBase64Encoded ? Math.floor((body.length * 3) / 4) : Buffer.byteLength(body);
    if (bytes > MAX_BODY_BYTES) throw new PayloadTooLargeError(MAX_BODY_BYTES);
    try {
      parse(request);
    } catch (error) {
      const status = (error as { statusCode?: number }).statusCode;
      throw status === 415 ? new UnsupportedMediaTypeError() : new MalformedJsonError();
    }
  };
  return { before: jsonBodyMiddlewareBefore };
}
