import type { MiddlewareObj, Request } from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import type { Authenticate } from '#lib/auth/authenticate';
import { mayReadEmbeddedDashboards } from '#lib/domain/embedding/embedding';
import { isAdmin, isRenderer, type Principal } from '#lib/domain/principal';
import { ForbiddenError } from '#lib/errors';

/**
 * Who may call a route. `admin`: an active admin console user. `embed-read`: whoever may read embedded
 * dashboards (the embedding rules), whose access to the target is then decided by the domain.
 * `embed-user`: an embed token alone (self-service subscriptions): any other credential is 403.
 * `renderer`: the platform's renderer (its trusted session), which reports delivery outcomes. `public`:
 * anyone, unauthenticated (the API description; unsubscribe, which its signed token authorizes).
 */
export type AccessPolicy = 'admin' | 'embed-read' | 'embed-user' | 'renderer' | 'public';
export type CallerPolicy = Exclude<AccessPolicy, 'public'>;

/** The caller, on the Lambda context for the handler; absent until this middleware ran. */
export type AuthorizedContext = Context & { principal?: Principal };

const allows: Record<CallerPolicy, (principal: Principal) => boolean> = {
  admin: isAdmin,
  'embed-read': mayReadEmbeddedDashboards,
  'embed-user': (principal) => principal.kind === 'embed',
  renderer: isRenderer,
};

/** Runs first, so that a caller without the right learns nothing: not the schema, not which ids exist. */
export function authorize(
  policy: CallerPolicy,
  authenticator: () => Authenticate,
): MiddlewareObj<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Error, AuthorizedContext> {
  const authorizeMiddlewareBefore = async (
    request: Request<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Error, AuthorizedContext>,
  ) => {
    const principal = await authenticator()(request.event.headers?.authorization);
    if (!allows[policy](principal)) throw new ForbiddenError();
    request.context.principal = principal;
  };
  return { before: authorizeMiddlewareBefore };
}
