import { composeHandler, type HandlerComposer } from '#lib/http/handler-chain';

/**
 * A route anyone may call (the API description; unsubscribe, which its signed token authorizes): the
 * chain of createHandler without authentication, so that its bundle holds no token verifier and no
 * credential store.
 */
export const createPublicHandler: HandlerComposer<unknown, unknown> = (definition) =>
  composeHandler(definition, 'public', [], () => ({}));
