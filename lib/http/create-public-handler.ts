import { baseUrlOf } from '#lib/http/base-url';
import { composeHandler, type HandlerComposer } from '#lib/http/handler-chain';

/**
 * A route anyone may call (the API description; unsubscribe, which its signed token authorizes): the
 * chain of createHandler without authentication, so that its bundle holds no token verifier and no
 * credential store. Its operations get the base URL the request reached the API at
 * (`https://host[/stage]`, or `/` when unknown), which the API description names as its server.
 */
export const createPublicHandler: HandlerComposer<unknown, { baseUrl: string }> = (definition) =>
  composeHandler(definition, 'public', [], (_context, event) => ({ baseUrl: baseUrlOf(event) }));
