import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import middy from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import type * as z from 'zod/mini';
import { type Authenticator, type CredentialDirectory, createAuthenticator } from '#lib/auth/authenticate';
import type { Principal } from '#lib/auth/principal';
import { type Config, config } from '#lib/config';
import { UnavailableError } from '#lib/errors';
import { type AccessPolicy, authorize } from '#lib/http/authorize';
import { errorHandler } from '#lib/http/error-handler';
import { jsonBody } from '#lib/http/json-body';
import { requestLog } from '#lib/http/request-log';
import { jsonResponse } from '#lib/http/responses';
import { type ValidatedInput, validate } from '#lib/http/validate';
import { logger } from '#lib/log';
import { metrics } from '#lib/metrics';
import { TIMEOUT_RESERVE_MS } from '#lib/timeouts';

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
  /** Where credentials are looked up. */
  credentials: CredentialDirectory;
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

function authenticatorOf(credentials: CredentialDirectory, settings: Config): Authenticator {
  return createAuthenticator({
    directory: credentials,
    trustedIssuers: settings.trustedIssuers,
    embedAudience: settings.embedAudience,
    principalCacheMs: settings.principalCacheMs,
    embedKeysCacheMs: settings.embedKeysCacheMs,
  });
}

/**
 * One authenticator per function, built on first use from the configuration. When the configuration
 * is readable at load, the trusted issuers' JWKS are fetched then, during Lambda's init, rather than on
 * the first request; when it is not, the first request fails naming the variable.
 */
function lazyAuthenticator(credentials: CredentialDirectory): () => Authenticator {
  let built: Authenticator | undefined;
  const get = () => {
    built ??= authenticatorOf(credentials, config());
    return built;
  };
  try {
    void get().hydrate();
  } catch {
    // Left for the first request, which reports it.
  }
  return get;
}

const outOfTime = () => {
  throw new UnavailableError('The request ran out of time; it is safe to repeat');
};

/**
 * Every operation gets the same chain in the same order: the Lambda context on every log line, the
 * metrics flush, the request log, then authorize (before anything reads the request), parse the JSON
 * body, validate with zod, run the operation, answer 200 with its result. Middy runs `after` and
 * `onError` in reverse: the error handler answers first, then the request log sees the final status.
 */
export function createHandler<
  PS extends Schema | undefined = undefined,
  BS extends Schema | undefined = undefined,
>(definition: HandlerDefinition<PS, BS>): ApiHandler {
  const chain = middy<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2>({
    timeoutEarlyInMillis: TIMEOUT_RESERVE_MS,
    timeoutEarlyResponse: outOfTime,
  })
    .use(injectLambdaContext(logger, { resetKeys: true }))
    .use(logMetrics(metrics, { captureColdStartMetric: true }))
    .use(requestLog())
    .use(errorHandler())
    .use(authorize(definition.access, lazyAuthenticator(definition.credentials)));
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
