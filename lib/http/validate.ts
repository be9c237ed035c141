import type { MiddlewareObj, Request } from '@middy/core';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import * as z from 'zod/mini';
import { ValidationError } from '#lib/errors';
import { check } from '#lib/http/schemas/common';

export interface RequestSchemas {
  params?: z.ZodMiniType;
  query?: z.ZodMiniType;
  headers?: z.ZodMiniType;
  body?: z.ZodMiniType;
}

export interface ValidatedInput {
  params: unknown;
  query: unknown;
  headers: unknown;
  body: unknown;
}

const noQuery = z.strictObject({});

/**
 * Validates path parameters and body with zod, the one schema source, and reports every problem of
 * both at once. The parsed values are handed on as `context.input`.
 */
export function validate(schemas: RequestSchemas): MiddlewareObj<APIGatewayProxyEventV2> {
  const validateMiddlewareBefore = (request: Request<APIGatewayProxyEventV2>) => {
    const params = schemas.params ? check(schemas.params, request.event.pathParameters ?? {}) : undefined;
    // An operation without query parameters still refuses any: a misspelt one must not be ignored.
    const query = check(schemas.query ?? noQuery, request.event.queryStringParameters ?? {});
    const headers = schemas.headers ? check(schemas.headers, request.event.headers ?? {}) : undefined;
    const body = schemas.body ? check(schemas.body, request.event.body) : undefined;
    const problems = [
      ...(params?.problems ?? []),
      ...query.problems,
      ...(headers?.problems ?? []),
      ...(body?.problems ?? []),
    ];
    if (problems.length > 0) throw new ValidationError(problems);
    const input: ValidatedInput = {
      params: params?.value,
      query: query.value,
      headers: headers?.value,
      body: body?.value,
    };
    Object.assign(request.context, { input });
  };
  return { before: validateMiddlewareBefore };
}
