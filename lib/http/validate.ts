import type { MiddlewareObj, Request } from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import * as z from 'zod/mini';
import { type FieldProblem, ValidationError } from '#lib/errors';
import { check } from '#lib/http/schemas/common';

type Schema = z.ZodMiniType;

/** What a declared schema yields; `undefined` for a part of the request the operation does not read. */
export type Checked<S> = S extends Schema ? z.output<S> : undefined;

export interface RequestSchemas<P, Q, H, B> {
  params?: P;
  query?: Q;
  headers?: H;
  body?: B;
}

interface ValidatedInput<P, Q, H, B> {
  params: Checked<P>;
  query: Checked<Q>;
  headers: Checked<H>;
  body: Checked<B>;
}

/** The validated request, on the Lambda context for the handler; absent until this middleware ran. */
export type ValidatedContext<P, Q, H, B> = Context & { input?: ValidatedInput<P, Q, H, B> };

const noQuery = z.strictObject({});

function checkDeclared<S extends Schema | undefined>(schema: S | undefined, value: unknown) {
  const result = schema ? check(schema, value) : { value: undefined, problems: [] };
  // TypeScript does not narrow `Checked<S>` by the test of `schema`: its output with one, else undefined.
  return result as { value: Checked<S>; problems: FieldProblem[] };
}

/**
 * Validates path parameters, query, headers and body with zod, the one schema source, and reports every
 * problem of all of them at once. The parsed values are handed on as `context.input`.
 */
export function validate<
  P extends Schema | undefined,
  Q extends Schema | undefined,
  H extends Schema | undefined,
  B extends Schema | undefined,
>(
  schemas: RequestSchemas<P, Q, H, B>,
): MiddlewareObj<
  APIGatewayProxyEventV2,
  APIGatewayProxyStructuredResultV2,
  Error,
  ValidatedContext<P, Q, H, B>
> {
  const validateMiddlewareBefore = (
    request: Request<
      APIGatewayProxyEventV2,
      APIGatewayProxyStructuredResultV2,
      Error,
      ValidatedContext<P, Q, H, B>
    >,
  ) => {
    const { event } = request;
    const params = checkDeclared(schemas.params, event.pathParameters ?? {});
    // An operation without query parameters still refuses any: a misspelt one must not be ignored.
    const query = checkDeclared(schemas.query, event.queryStringParameters ?? {});
    const unknownQuery = schemas.query ? [] : check(noQuery, event.queryStringParameters ?? {}).problems;
    const headers = checkDeclared(schemas.headers, event.headers ?? {});
    const body = checkDeclared(schemas.body, event.body);
    const problems = [
      ...params.problems,
      ...query.problems,
      ...unknownQuery,
      ...headers.problems,
      ...body.problems,
    ];
    if (problems.length > 0) throw new ValidationError(problems);
    request.context.input = {
      params: params.value,
      query: query.value,
      headers: headers.value,
      body: body.value,
    };
  };
  return { before: validateMiddlewareBefore };
}
