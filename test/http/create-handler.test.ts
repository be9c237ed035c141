import { afterAll, describe, expect, it, vi } from 'vitest';
import * as z from 'zod/mini';
import type { CallerPolicy } from '#lib/http/authorize';
import { jsonBody } from '#lib/http/json-body';
import { freshForEachTest } from '#test/support/fresh-module';
import { countingJwksEndpoint } from '#test/support/jwks-endpoint';
import { apiEvent, invoke, testRoute as route } from '#test/support/middleware';
import { freshClaims, generateSigningKey, signJwt } from '#test/support/tokens';

/**
 * An authenticated route, built from the function's configuration. A platform token is verified by
 * its issuer's keys alone, so these need no table: no credential is looked up.
 */

// Loaded in each test: how the authenticator is made of the settings is fixed when the module loads.
const handlers = freshForEachTest(() => import('#lib/http/create-handler'));
const createHandler: typeof import('#lib/http/create-handler').createHandler = (definition) =>
  handlers().createHandler(definition);

const PLATFORM = 'https://platform.test.example';
const platformKey = generateSigningKey('platform-1');

const jwksEndpoint = await countingJwksEndpoint();
afterAll(() => jwksEndpoint.close());

// Read on the first handler's creation, after this line has run.
process.env.TRUSTED_ISSUERS = JSON.stringify([
  { kind: 'platform', issuer: PLATFORM, audience: 'platform', jwks: { keys: [platformKey.publicJwk] } },
  {
    kind: 'console',
    issuer: 'https://idp.test.example',
    audience: 'console',
    jwksUri: jwksEndpoint.uri,
  },
]);

const rendererToken = signJwt(
  freshClaims({ iss: PLATFORM, aud: 'platform', sub: 'renderer', session: 'screenshot' }),
  platformKey,
);
const asRenderer = (parts: Parameters<typeof apiEvent>[0] = {}) =>
  apiEvent({ ...parts, headers: { authorization: `Bearer ${rendererToken}`, ...parts.headers } });

/** A route that expects a JSON body: what reads the request refuses anything else. */
const expectingBody = (access: CallerPolicy) =>
  createHandler({ route, access, body: jsonBody(z.object({})), operation: async () => 'done' });

describe('createHandler', () => {
  it("hands the operation the verified caller and the function's settings", async () => {
    const handler = createHandler({
      route,
      access: 'renderer',
      operation: async ({ principal, settings }) => ({ principal, embedAudience: settings.embedAudience }),
    });
    const response = await invoke(handler, asRenderer());
    expect(JSON.parse(response.body ?? '')).toEqual({
      principal: { kind: 'platform', session: 'screenshot' },
      embedAudience: 'embed',
    });
  });

  it('refuses a caller without a credential 401, before it reads the request', async () => {
    const handler = expectingBody('renderer');
    const response = await invoke(handler, apiEvent({ body: 'not JSON' }));
    expect(response).toMatchObject({ statusCode: 401, headers: { 'www-authenticate': 'Bearer' } });
  });

  it("refuses a caller the route's policy does not allow 403, before it reads the request", async () => {
    const handler = expectingBody('admin');
    const response = await invoke(handler, asRenderer({ body: 'not JSON' }));
    expect(JSON.parse(response.body ?? '')).toMatchObject({ code: 'forbidden' });
  });

  it('fetches the keys of issuers given by URI when it is made, ahead of the first request', async () => {
    const before = jwksEndpoint.connections();
    createHandler({ route, access: 'admin', operation: async () => 'done' });
    await vi.waitFor(() => expect(jwksEndpoint.connections()).toBeGreaterThan(before));
  });

  it('carries who may call it in its declaration', () => {
    const handler = createHandler({ route, access: 'admin', operation: async () => 'done' });
    expect(handler.definition).toMatchObject({ route, access: 'admin' });
  });
});
