import type { MiddlewareObj, Request } from '@middy/core';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import type * as z from 'zod/mini';
import { MalformedJsonError, UnsupportedMediaTypeError } from '#lib/errors';
import { ensureBodyWithinLimit } from '#lib/http/body-size';
import { parseJsonText } from '#lib/http/json-text';

/** A handler's JSON body: what it is checked against, whether it may be absent, and the parser it goes through. */
export interface JsonBody<S> {
  schema: S;
  /** An absent or empty body reads as `{}` (only for operations whose whole body is optional). */
  optional: boolean;
  parser: MiddlewareObj<APIGatewayProxyEventV2>;
}

/** `application/json` and `application/<anything>+json`, with or without parameters (Middy's test). */
const jsonContentType = /^application\/([a-z0-9.+-]+\+)?json(;|$)/i;
/** A `charset` parameter, quoted or not; JSON is UTF-8 (RFC 8259), so no other is read. */
const charsetParameter = /;\s*charset\s*=\s*"?([^";\s]*)"?/i;

/** A JSON content type whose charset, if it names one, is UTF-8. */
function isUtf8Json(contentType: string): boolean {
  if (!jsonContentType.test(contentType)) return false;
  const charset = charsetParameter.exec(contentType)?.[1];
  return charset === undefined || /^utf-8$/i.test(charset);
}

/**
 * Declares a handler's JSON body, checked against `schema` once parsed. The handlers that take a body
 * import this, so that no other function bundles the parser.
 */
export function jsonBody<S extends z.ZodMiniType>(schema: S, { optional = false } = {}): JsonBody<S> {
  return { schema, optional, parser: jsonBodyParser(optional) };
}

/**
 * The JSON body: 413 past 5 MiB, 415 for a non-JSON content type or a charset other than UTF-8, 400 `malformed_json` for a body
 * that does not parse and 400 `validation_failed` for JSON that cannot be kept exactly (see json-text).
 */
function jsonBodyParser(optional: boolean): MiddlewareObj<APIGatewayProxyEventV2> {
  const jsonBodyMiddlewareBefore = (request: Request<APIGatewayProxyEventV2>) => {
    const { body, isBase64Encoded } = request.event;
    if (body === undefined || body === '') {
      if (optional) {
        Object.assign(request.event, { body: {} });
        return;
      }
      throw new MalformedJsonError();
    }
    ensureBodyWithinLimit(request.event);
    const { headers } = request.event;
    if (!isUtf8Json(headers?.['content-type'] ?? headers?.['Content-Type'] ?? '')) {
      throw new UnsupportedMediaTypeError();
    }
    const text = isBase64Encoded ? Buffer.from(body, 'base64').toString('utf8') : body;
    // Parsed in place, as Middy's own JSON body parser does: validation reads `event.body`.
    Object.assign(request.event, { body: parseJsonText(text) });
  };
  return { before: jsonBodyMiddlewareBefore };
}
