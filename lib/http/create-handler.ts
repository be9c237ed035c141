import middy from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import type * as z from 'zod/mini';
import type { Authenticator } from '#lib/auth/authenticate';
import type { Principal } from '#lib/auth/principal';
import { type Config, config } from '#lib/config';
import { UnavailableError } from '#lib/errors';
import { type AccessPolicy, authorize } from '#lib/http/authorize';
import { baseUrlOf } from '#lib/http/base-url';
import { errorHandler } from '#lib/http/error-handler';
import { jsonBody } from '#lib/http/json-body';
import { requestLog } from '#lib/http/request-log';
import { jsonResponse, noContentResponse, securityHeaders } from '#lib/http/responses';
import { type ValidatedInput, validate } from '#lib/http/validate';
import { lambdaContextLog } from '#lib/log';
import { requestMetrics } from '#lib/metrics';
import { TIMEOUT_RESERVE_MS } from '#lib/timeouts';

/** What the middlewares hand on to the operation, on Middy's request context. */
type RequestContext = Context & { principal: Principal; input: ValidatedInput };

type Schema = z.ZodMiniType;
type Output<S> = S extends Schema ? z.output<S> : undefined;

interface OperationInput<P, B, Q = undefined, H = undefined> {
  params: P;
  query: Q;
  headers: H;
  body: B;
  /** Undefined only on public routes. */
  principal: Principal;
  /** Milliseconds left before Lambda stops this invocation; long work stops early and says so. */
  remainingTimeMs: () => number;
  /** The base URL the request reached the API at (`https://host[/stage]`), or `/` when unknown. */
  baseUrl: string;
}

/** How an operation answers when it succeeds; the error handler decides every other status. */
type Success<R> =
  | { status: 200 | 202 }
  /** Created: the answer names the new resource's path in `Location`. */
  | { status: 201; location: (result: R) => string }
  /** No content: the result is not sent. */
  | { status: 204 }
  /** An HTML page (the result is its text), under its own Content-Security-Policy. */
  | { status: 200; html: { contentSecurityPolicy: string } };

export interface HandlerDefinition<
  PS extends Schema | undefined,
  BS extends Schema | undefined,
  QS extends Schema | undefined = undefined,
  HS extends Schema | undefined = undefined,
  R = unknown,
> {
  access: AccessPolicy;
  /**
   * How callers are authenticated (lib/http/authentication.ts), built on first use; absent only on a
   * public route, whose bundle then holds no token verifier and no credential store.
   */
  authentication?: (settings: Config) => Authenticator;
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
  /** The shape of the success answer, for the API description (not checked at run time). */
  response?: Schema;
  operation: (input: OperationInput<Output<PS>, Output<BS>, Output<QS>, Output<HS>>) => Promise<R>;
}

/** A handler carries its definition, from which the API description is built. */
export type ApiHandler = ApiHandlerFunction & {
  definition: HandlerDefinition<
    Schema | undefined,
    Schema | undefined,
    Schema | undefined,
    Schema | undefined
  >;
};

type ApiHandlerFunction = (
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

/**
 * One authenticator per function, built on first use from the configuration. When the configuration
 * is readable at load, the trusted issuers' JWKS are fetched then, during Lambda's init, rather than on
 * the first request; when it is not, the first request fails naming the variable.
 */
function lazyAuthenticator(build: (settings: Config) => Authenticator): () => Authenticator {
  let built: Authenticator | undefined;
  const get = () => {
    built ??= build(config());
    return built;
  };
  try {
    void get().hydrate();
  } catch {
    // Left for the first request, which reports it.
  }
  return get;
}

const noAuthenticator = (): Authenticator => {
  throw new Error('A public route authenticates no one');
};

const outOfTime = () => {
  throw new UnavailableError('The request ran out of time; it is safe to repeat');
};

/**
 * Every operation gets the same chain in the same order: the Lambda context on every log line, the
 * metrics flush, the request log, then authorize (before anything reads the request), parse the JSON
 * body, validate with zod, run the operation, answer its success status. Middy runs `after` and
 * `onError` in reverse: the error handler answers first, then the request log sees the final status.
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
    timeoutEarlyResponse: outOfTime,
  })
    .use(lambdaContextLog())
    .use(requestMetrics())
    .use(requestLog())
    .use(errorHandler())
    .use(
      authorize(
        definition.access,
        // A public route authenticates no one: no authenticator, no keys fetched at init.
        definition.access === 'public' || !definition.authentication
          ? noAuthenticator
          : lazyAuthenticator(definition.authentication),
      ),
    );
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

  const handler = chain.handler(async (event, context) => {
    const { principal, input } = context as RequestContext;
    const result = await definition.operation({
      params: input.params as Output<PS>,
      query: input.query as Output<QS>,
      headers: input.headers as Output<HS>,
      body: input.body as Output<BS>,
      principal,
      remainingTimeMs: () => context.getRemainingTimeInMillis() - TIMEOUT_RESERVE_MS,
      baseUrl: baseUrlOf(event),
    });
    if (success.status === 204) return noContentResponse();
    if ('html' in success) {
      return {
        statusCode: 200,
        headers: {
          'content-type': 'text/html; charset=utf-8',
          ...securityHeaders,
          'content-security-policy': success.html.contentSecurityPolicy,
        },
        body: String(result),
      };
    }
    if (success.status === 201) return jsonResponse(201, result, { location: success.location(result) });
    return jsonResponse(success.status, result);
  });
  const apiHandler: ApiHandler = Object.assign(handler as ApiHandlerFunction, {
    definition: definition as ApiHandler['definition'],
  });
  schemasOfHandler.set(apiHandler, { params: definition.params, body: definition.body });
  return apiHandler;
}
