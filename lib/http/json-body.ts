import type { MiddlewareObj, Request } from '@middy/core';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { MalformedJsonError, PayloadTooLargeError, UnsupportedMediaTypeError } from '#lib/errors';
import { parseJsonText } from '#lib/http/json-text';

const MAX_BODY_BYTES = 5 * 1024 * 1024;

interface JsonBodyOptions {
  /** An optional body that is absent or empty reads as `{}` (the contract's rule for optional bodies). */
  optional: boolean;
}

/** `application/json` and `application/<anything>+json`, with or without parameters (Middy's test). */
const jsonContentType = /^application\/([a-z0-9.+-]+\+)?json(;|$)/i;

/**
 * The JSON body: 413 past 5 MiB, 415 for a non-JSON content type, 400 `malformed_json` for a body
 * that does not parse and 400 `validation_failed` for JSON that cannot be kept exactly (see json-text).
 */
export function jsonBody({ optional }: JsonBodyOptions): MiddlewareObj<APIGatewayProxyEventV2> {
  const jsonBodyMiddlewareBefore = (request: Request<APIGatewayProxyEventV2>) => {
    const { body, isBase64Encoded } = request.event;
    if (body === undefined || body === '') {
      if (optional) {
        Object.assign(request.event, { body: {} });
        return;
      }
      throw new MalformedJsonError();
    }
    const bytes = isBase64Encoded ? Math.floor((body.length * 3) / 4) : Buffer.byteLength(body);
    if (bytes > MAX_BODY_BYTES) throw new PayloadTooLargeError(MAX_BODY_BYTES);
    const { headers } = request.event;
    if (!jsonContentType.test(headers?.['content-type'] ?? headers?.['Content-Type'] ?? '')) {
      throw new UnsupportedMediaTypeError();
    }
    const text = isBase64Encoded ? Buffer.from(body, 'base64').toString('utf8') : body;
    // Parsed in place, as Middy's own JSON body parser does: validation reads `event.body`.
    Object.assign(request.event, { body: parseJsonText(text) });
  };
  return { before: jsonBodyMiddlewareBefore };
}
