import middy from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import type * as z from 'zod/mini';
import type { Principal } from '#lib/auth/principal';
import { type AccessPolicy, authorize } from '#lib/http/authorize';
import { errorHandler } from '#lib/http/error-handler';
import { jsonBody } from '#lib/http/json-body';
import { jsonResponse } from '#lib/http/responses';
import { type ValidatedInput, validate } from '#lib/http/validate';

/** What the middlewares hand on to the operation, on Middy's request context. */
export type RequestContext = Context & { principal: Principal; input: ValidatedInput };

type Schema = z.ZodMiniType;
type Output<S> = S extends Schema ? z.output<S> : undefined;

export interface OperationInput<P, B, Q = undefined, H = undefined> {
  params: P;
  query: Q;
  headers: H;
  body: B;
  /** Undefined only on public routes. */
  principal: Principal;
  /** Milliseconds left before Lambda stops this invocation; long work stops early and says so. */
  remainingTimeMs: () => number;
}

/** How an operation answers when it succeeds; the error handler decides every other status. */
export type Success<R> =
  | { status: 200 | 202 }
  /** Created: the answer names the new resource's path in `Location`. */
  | { status: 201; location: (result: R) => string }
  /** No content: the result is not sent. */
  | { status: 204 };

export interface HandlerDefinition<
  PS extends Schema | undefined,
  BS extends Schema | undefined,
  QS extends Schema | undefined = undefined,
  HS extends Schema | undefined = undefined,
  R = unknown,
> {
  access: AccessPolicy;
  params?: PS;
  /** The query parameters; an operation without this schema refuses any query parameter. */
  query?: QS;
  /** Request headers the operation reads (header names lower-cased); other headers pass. */
  headers?: HS;
  body?: BS;
  /** Whether an absent or empty body reads as `{}` (only for operations whose whole body is optional). */
  bodyOptional?: boolean;
  /** 200 with the result when absent. */
  success?: Success<R>;
  operation: (input: OperationInput<Output<PS>, Output<BS>, Output<QS>, Output<HS>>) => Promise<R>;
}

export type ApiHandler = (
  event: APIGatewayProxyEventV2,
  context: Context,
) => Promise<APIGatewayProxyStructuredResultV2>;

/** Time kept back from Lambda's limit so that a late request still gets a proper 503, not a kill. */
const TIMEOUT_RESERVE_MS = 500;

/**
 * Every operation gets the same chain in the same order: authorize (before anything reads the
 * request), parse the JSON body, validate with zod, run the operation, answer its success status.
 * The error handler is registered first so that its onError runs last and sees every failure.
 */
export function createHandler<
  PS extends Schema | undefined = undefined,
  BS extends Schema | undefined = undefined,
  QS extends Schema | undefined = undefined,
  HS extends Schema | undefined = undefined,
  R = unknown,
>(definition: HandlerDefinition<PS, BS, QS, HS, R>): ApiHandler {
  const chain = middy<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2>({
    timeoutEarlyInMillis: TIMEOUT_RESERVE_MS,
  })
    .use(errorHandler())
    .use(authorize(definition.access));
  if (definition.body) chain.use(jsonBody({ optional: definition.bodyOptional ?? false }));
  chain.use(
    validate({
      params: definition.params,
      query: definition.query,
      headers: definition.headers,
      body: definition.body,
    }),
  );
  const success: Success<R> = definition.success ?? { status: 200 };

  return chain.handler(async (_event, context) => {
    const { principal, input } = context as RequestContext;
    const result = await definition.operation({
      params: input.params as Output<PS>,
      query: input.query as Output<QS>,
      headers: input.headers as Output<HS>,
      body: input.body as Output<BS>,
      principal,
      remainingTimeMs: () => context.getRemainingTimeInMillis() - TIMEOUT_RESERVE_MS,
    });
    if (success.status === 204) return { statusCode: 204, headers: {}, body: '' };
    if (success.status === 201) return jsonResponse(201, result, { location: success.location(result) });
    return jsonResponse(success.status, result);
  }) as ApiHandler;
}
