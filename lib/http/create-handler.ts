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

export interface OperationInput<P, B> {
  params: P;
  body: B;
  principal: Principal;
  /** Milliseconds left before Lambda stops this invocation; long work stops early and says so. */
  remainingTimeMs: () => number;
}

export interface HandlerDefinition<PS extends Schema | undefined, BS extends Schema | undefined> {
  access: AccessPolicy;
  params?: PS;
  body?: BS;
  /** Whether an absent or empty body reads as `{}` (only for operations whose whole body is optional). */
  bodyOptional?: boolean;
  operation: (input: OperationInput<Output<PS>, Output<BS>>) => Promise<unknown>;
}

export type ApiHandler = (
  event: APIGatewayProxyEventV2,
  context: Context,
) => Promise<APIGatewayProxyStructuredResultV2>;

/** The zod schemas a handler checks its request with. */
export interface HandlerSchemas {
  params?: Schema;
  body?: Schema;
}

/** Kept so that generated-request tests derive their inputs from the very schemas each route checks with. */
const schemasOfHandler = new WeakMap<ApiHandler, HandlerSchemas>();

export const handlerSchemas = (handler: ApiHandler): HandlerSchemas | undefined =>
  schemasOfHandler.get(handler);

/** Time kept back from Lambda's limit so that a late request still gets a proper 503, not a kill. */
const TIMEOUT_RESERVE_MS = 500;

/**
 * Every operation gets the same chain in the same order: authorize (before anything reads the
 * request), parse the JSON body, validate with zod, run the operation, answer 200 with its result.
 * The error handler is registered first so that its onError runs last and sees every failure.
 */
export function createHandler<
  PS extends Schema | undefined = undefined,
  BS extends Schema | undefined = undefined,
>(definition: HandlerDefinition<PS, BS>): ApiHandler {
  const chain = middy<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2>({
    timeoutEarlyInMillis: TIMEOUT_RESERVE_MS,
  })
    .use(errorHandler())
    .use(authorize(definition.access));
  if (definition.body) chain.use(jsonBody({ optional: definition.bodyOptional ?? false }));
  chain.use(validate({ params: definition.params, body: definition.body }));

  const handler = chain.handler(async (_event, context) => {
    const { principal, input } = context as RequestContext;
    const result = await definition.operation({
      params: input.params as Output<PS>,
      body: input.body as Output<BS>,
      principal,
      remainingTimeMs: () => context.getRemainingTimeInMillis() - TIMEOUT_RESERVE_MS,
    });
    return jsonResponse(200, result);
  }) as ApiHandler;
  schemasOfHandler.set(handler, { params: definition.params, body: definition.body });
  return handler;
}
