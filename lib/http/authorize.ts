import type { MiddlewareObj, Request } from '@middy/core';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { type Authenticate, createAuthenticator } from '#lib/auth/authenticate';
import { isAdmin, type Principal } from '#lib/auth/principal';
import { config } from '#lib/config';
import { ForbiddenError } from '#lib/errors';
import { credentialDirectory } from '#lib/store/users';

/**
 * Who may call a route. `admin`: an active admin console user. `embed-read`: also trusted platform
 * sessions and embed tokens, whose access to the target is then decided by the domain. `public`:
 * anyone, unauthenticated (the API description).
 */
export type AccessPolicy = 'admin' | 'embed-read' | 'public';

const allows: Record<Exclude<AccessPolicy, 'public'>, (principal: Principal) => boolean> = {
  admin: isAdmin,
  'embed-read': (principal) => principal.kind !== 'console' || isAdmin(principal),
};

let shared: Authenticate | undefined;

function defaultAuthenticator(): Authenticate {
  if (!shared) {
    const settings = config();
    shared = createAuthenticator({
      directory: credentialDirectory,
      trustedIssuers: settings.trustedIssuers,
      embedAudience: settings.embedAudience,
      principalCacheMs: settings.principalCacheMs,
      embedKeysCacheMs: settings.embedKeysCacheMs,
    });
  }
  return shared;
}

/** Runs first, so that a caller without the right learns nothing: not the schema, not which ids exist. */
export function authorize(policy: AccessPolicy): MiddlewareObj<APIGatewayProxyEventV2> {
  const authorizeMiddlewareBefore = async (request: Request<APIGatewayProxyEventV2>) => {
    if (policy === 'public') return;
    const principal = await defaultAuthenticator()(request.event.headers?.authorization);
    if (!allows[policy](principal)) throw new ForbiddenError();
    Object.assign(request.context, { principal });
  };
  return { before: authorizeMiddlewareBefore };
}
