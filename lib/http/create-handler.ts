import type { Authenticator } from '#lib/auth/authenticate';
import { type Config, config } from '#lib/config';
import type { Principal } from '#lib/domain/principal';
import { authenticatorFor } from '#lib/http/authentication';
import { authorize, type CallerPolicy } from '#lib/http/authorize';
import { composeHandler, type HandlerComposer } from '#lib/http/handler-chain';

export type { ApiHandler } from '#lib/http/handler-chain';

/**
 * One authenticator per function, built on first use from the configuration. When the configuration
 * is readable at load, the trusted issuers' JWKS are fetched then, during Lambda's init, rather than on
 * the first request; when it is not, the first request fails naming the variable.
 */
function lazyAuthenticator(): () => Authenticator {
  let built: Authenticator | undefined;
  const get = () => {
    built ??= authenticatorFor(config());
    return built;
  };
  try {
    void get().hydrate();
  } catch {
    // Left for the first request, which reports it.
  }
  return get;
}

/**
 * A route for authenticated callers: the shared chain (lib/http/handler-chain.ts) with the caller
 * authorized against the credential store, which this module supplies, then the operation and its
 * success status. Public routes use createPublicHandler, whose bundle holds no credential store.
 */
export const createHandler: HandlerComposer<
  { access: CallerPolicy },
  {
    principal: Principal;
    /** The function's settings, read from its environment once per container. */
    settings: Config;
    /** API Gateway's id of the request: what an audit event names it by. */
    requestId: string | null;
  }
> = (definition) => {
  const callerCheck = authorize(definition.access, lazyAuthenticator());
  return composeHandler(definition, definition.access, [callerCheck], ({ principal }, event) => {
    if (!principal) throw new Error('The chain lost its authorize middleware');
    return { principal, settings: config(), requestId: event.requestContext?.requestId ?? null };
  });
};
