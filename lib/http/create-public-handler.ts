import { baseUrlOf } from '#lib/http/base-url';
import { bodyWithinLimit } from '#lib/http/body-size';
import { composeHandler, type HandlerComposer } from '#lib/http/handler-chain';

/** What a public route may declare beyond the request's schemas. */
interface PublicDeclaration {
  /**
   * The route takes any body, of any type, or none, and reads none of it (RFC 8058's one-click POST
   * sends a form): only its size is checked, as every body's is.
   */
  anyBody?: true;
}

/**
 * A route anyone may call (the API description; unsubscribe, which its signed token authorizes): the
 * chain of createHandler without authentication, so that its bundle holds no token verifier and no
 * credential store. Its operations get the base URL the request reached the API at
 * (`https://host[/stage]`, or `/` when unknown), which the API description names as its server.
 */
export const createPublicHandler: HandlerComposer<
  PublicDeclaration,
  { baseUrl: string; requestId: string | null }
> = (definition) =>
  composeHandler(definition, 'public', definition.anyBody ? [bodyWithinLimit()] : [], (_context, event) => ({
    baseUrl: baseUrlOf(event),
    requestId: event.requestContext?.requestId ?? null,
  }));
