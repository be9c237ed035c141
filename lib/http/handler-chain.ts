import middy, { type MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import type * as z from 'zod/mini';
import { type Deadline, invocationDeadline } from '#lib/deadline';
import { UnavailableError } from '#lib/errors';
import type { AccessPolicy, AuthorizedContext } from '#lib/http/authorize';
import { errorHandler } from '#lib/http/error-handler';
import type { JsonBody } from '#lib/http/json-body';
import { requestLog } from '#lib/http/request-log';
import { jsonResponse, noContentResponse, securityHeaders } from '#lib/http/responses';
import { type Checked, validate } from '#lib/http/validate';
import { lambdaContextLog } from '#lib/log';
import { recordBusinessMetric, requestMetrics } from '#lib/metrics';
import type { RouteFacts } from '#lib/routes';
import { TIMEOUT_RESERVE_MS } from '#lib/timeouts';

/**
 * What every handler shares, public or not: the Middy chain, the shape of a declaration, and how a
 * success is answered. lib/http/create-handler.ts (authenticated callers) and create-public-handler.ts
 * (anyone) put the operation at its end.
 */

export type Schema = z.ZodMiniType;

/** How an operation answers when it succeeds; the error handler decides every other status. */
type Success<R> =
  | { status: 200 | 202 }
  /** Created: the answer names the new resource's path in `Location`. */
  | { status: 201; location: (result: R) => string }
  /** No content: the result is not sent. */
  | { status: 204 }
  /** An HTML page (the result is its text), under its own Content-Security-Policy. */
  | { status: 200; html: { contentSecurityPolicy: string } };

/** The business metrics a route declares (lib/routes.ts), the only ones its operation may count. */
type MetricOf<Route extends RouteFacts> = Route extends {
  businessMetrics: readonly (infer M extends string)[];
}
  ? M
  : never;

/** What every operation is handed, besides the caller on authenticated routes. */
interface OperationInput<Route extends RouteFacts, P, Q, H, B> {
  params: Checked<P>;
  query: Checked<Q>;
  headers: Checked<H>;
  body: Checked<B>;
  /** When Lambda stops this invocation, less the time kept to answer; long work stops early and says so. */
  deadline: Deadline;
  /** Counts a business event of this request (nothing is emitted for zero). */
  recordMetric: (metric: MetricOf<Route>, count: number) => void;
}

/** What a handler declares beside its operation: the route, the request's schemas, the answer. */
interface RequestDeclaration<Route extends RouteFacts, P, Q, H, B, R> {
  /** The route's facts (lib/routes.ts): its own constant, so that no other route's facts are bundled. */
  route: Route;
  params?: P;
  /** The query parameters; an operation without this schema refuses any query parameter. */
  query?: Q;
  /** Request headers the operation reads (header names lower-cased); other headers pass. */
  headers?: H;
  /** The JSON body, declared with `jsonBody(schema)` (lib/http/json-body.ts); none is read without it. */
  body?: JsonBody<NonNullable<B>>;
  /** 200 with the result when absent. */
  success?: Success<R>;
}

/** A handler's declaration as the API description reads it (lib/openapi/build-document.ts). */
export interface HandlerDescription
  extends Omit<RequestDeclaration<RouteFacts, Schema, Schema, Schema, Schema, never>, 'success'> {
  access: AccessPolicy;
  success?: { status: 200 | 201 | 202 | 204; html?: { contentSecurityPolicy: string } };
}

type ApiHandlerFunction = (
  event: APIGatewayProxyEventV2,
  context: Context,
) => Promise<APIGatewayProxyStructuredResultV2>;

/** A handler carries its declaration, from which the API description is built. */
export type ApiHandler = ApiHandlerFunction & { definition: HandlerDescription };

const outOfTime = () => {
  throw new UnavailableError('The request ran out of time; it is safe to repeat');
};

type CallerCheck = MiddlewareObj<
  APIGatewayProxyEventV2,
  APIGatewayProxyStructuredResultV2,
  Error,
  AuthorizedContext
>;

/**
 * A function that makes a handler of a declaration: createHandler (whose declarations also name who may
 * call, `Policy`, and whose operations also get the caller, `Added`) and createPublicHandler (whose
 * operations get the base URL instead).
 */
export type HandlerComposer<Policy, Added> = <
  Route extends RouteFacts,
  P extends Schema | undefined = undefined,
  B extends Schema | undefined = undefined,
  Q extends Schema | undefined = undefined,
  H extends Schema | undefined = undefined,
  R = unknown,
>(
  definition: Composable<Route, P, Q, H, B, R, Added> & Policy,
) => ApiHandler;

/** A declaration with its operation, which takes the request's input and what the chain adds to it. */
type Composable<Route extends RouteFacts, P, Q, H, B, R, Added> = RequestDeclaration<Route, P, Q, H, B, R> & {
  operation: (input: OperationInput<Route, P, Q, H, B> & Added) => Promise<R>;
};

/**
 * Every route's handler, with the same chain in the same order: the Lambda context on every log line,
 * the metrics flush, the request log, the error handler, then the caller's authorization (before
 * anything reads the request), the JSON body (only where one is expected: Middy's parser would refuse
 * a GET), validation with zod; then the operation, on the validated input and what `added` takes from
 * the context and the event (the caller; the base URL), and its success status. Middy runs `after`
 * and `onError` in reverse: the error handler answers first, then the request log sees the final status.
 */
export function composeHandler<
  Route extends RouteFacts,
  P extends Schema | undefined,
  Q extends Schema | undefined,
  H extends Schema | undefined,
  B extends Schema | undefined,
  R,
  Added,
>(
  declaration: Composable<Route, P, Q, H, B, R, Added>,
  access: AccessPolicy,
  callerChecks: CallerCheck[],
  added: (context: AuthorizedContext, event: APIGatewayProxyEventV2) => Added,
): ApiHandler {
  const chain = middy<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2>({
    timeoutEarlyInMillis: TIMEOUT_RESERVE_MS,
    timeoutEarlyResponse: outOfTime,
  })
    .use(lambdaContextLog())
    .use(requestMetrics())
    .use(requestLog(declaration.route.operation))
    .use(errorHandler({ takesIdempotencyKey: declaration.route.takesIdempotencyKey === true }))
    .use(callerChecks);
  if (declaration.body) chain.use(declaration.body.parser);
  const schemas = { ...declaration, body: declaration.body?.schema };
  const handler = chain.use(validate<P, Q, H, B>(schemas)).handler(async (event, context) => {
    const { input } = context;
    if (!input) throw new Error('The chain lost its validate middleware');
    const result = await declaration.operation({
      ...input,
      deadline: invocationDeadline(context, TIMEOUT_RESERVE_MS),
      recordMetric: recordBusinessMetric,
      ...added(context, event),
    });
    return successResponse(declaration.success, result);
  });
  return Object.assign(handler, { definition: { ...declaration, access } });
}

/** The answer of an operation that succeeded: 200 with the result unless its declaration says otherwise. */
function successResponse<R>(
  success: Success<R> = { status: 200 },
  result: R,
): APIGatewayProxyStructuredResultV2 {
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
}
