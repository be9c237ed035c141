import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildFromFunctions } from '#lib/openapi/build-document';
import { routes } from '#lib/routes';
import { ADMIN_KEY } from '#test/support/fixtures';
import { type LocalApi, startLocalApi } from '#test/support/local-api';
import { responseProblems } from '#test/support/openapi-check';
import { lifecycleFixture } from '../functions/lifecycle-helpers.ts';

// biome-ignore lint/suspicious/noExplicitAny: the test reads the document by path; a wrong path fails the assertion.
type Json = Record<string, any>;

let committed: Json;
let api: LocalApi;

beforeAll(async () => {
  committed = JSON.parse(await readFile(new URL('../../lib/openapi/openapi.json', import.meta.url), 'utf8'));
  api = await startLocalApi(lifecycleFixture);
});
afterAll(() => api.close());

const operations = () =>
  routes.map((route) => ({ route, operation: committed.paths[route.path]?.[route.method.toLowerCase()] }));

describe('the API description', () => {
  it('is what the handlers declare now (run `npm run openapi` after changing a schema)', async () => {
    const fresh = await buildFromFunctions(new URL('../../functions/', import.meta.url));
    expect(committed).toEqual(fresh);
  });

  it("is what the typed client's types were made from", async () => {
    const json = await readFile(new URL('../../lib/openapi/openapi.json', import.meta.url), 'utf8');
    const types = await readFile(new URL('../generated/api-types.ts', import.meta.url), 'utf8');
    const digest = createHash('sha256').update(json).digest('hex');
    expect(types.split('\n')[0]).toContain(`sha256 ${digest}`);
  });

  it('is a valid OpenAPI 3.1 document, version 1.0.0', async () => {
    const result = await new Validator().validate(committed);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(committed.openapi).toMatch(/^3\.1\./);
    expect(committed.info.version).toBe('1.0.0');
  });

  /** Authorized by nothing (the description) or by their signed token alone (unsubscribe). */
  const publicOperations = new Set<string>(['get-api-spec', 'unsubscribe', 'get-unsubscribe-page']);

  it('describes every route with its parameters, body, success and error statuses', () => {
    for (const { route, operation } of operations()) {
      expect(operation, `${route.method} ${route.path}`).toBeDefined();
      const pathParameters = [...route.path.matchAll(/\{(\w+)\}/g)].map((match) => match[1]);
      expect(
        operation.parameters.filter((parameter: Json) => parameter.in === 'path').map((p: Json) => p.name),
      ).toEqual(pathParameters);
      expect(Object.keys(operation.responses)).toContain('400');
      expect(Object.keys(operation.responses)).toContain('500');
      if (!publicOperations.has(route.operation)) {
        expect(Object.keys(operation.responses)).toEqual(expect.arrayContaining(['401', '403']));
      }
    }
    const create = committed.paths['/v1/deployments/{deploymentId}/notifications'].post;
    expect(Object.keys(create.responses)).toEqual(expect.arrayContaining(['201', '404', '409', '422']));
    expect(create.responses['201'].headers.Location).toBeDefined();
    expect(create.parameters.map((parameter: Json) => parameter.name)).toContain('idempotency-key');
    expect(create.requestBody.content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/CreateNotificationInput',
    });
    expect(committed.components.schemas.CreateNotificationInput.required).toContain('scheduleType');
    const list = committed.paths['/v1/deployments/{deploymentId}/notifications'].get;
    expect(list.parameters.filter((p: Json) => p.in === 'query').map((p: Json) => p.name)).toEqual([
      'first',
      'after',
      'dashboardId',
      'dashboardPublicId',
      'recipientUserId',
      'recipientEmail',
      'recipientEmbedTenantName',
      'recipientExternalId',
      'ownerUserId',
      'status',
    ]);
    const remove = committed.paths['/v1/deployments/{deploymentId}/notifications/{id}/recipients'].delete;
    expect(remove.responses['204']).toEqual({ description: 'Done; no content' });
  });

  it('names its shapes as components, referenced where used, and tags every operation', () => {
    const { schemas } = committed.components;
    for (const name of ['NotificationDto', 'RunDto', 'PageInfo', 'NotificationRecipient', 'Error']) {
      expect(schemas[name], name).toBeDefined();
    }
    const get = committed.paths['/v1/deployments/{deploymentId}/notifications/{id}'].get;
    expect(get.responses['200'].content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/NotificationDto',
    });
    expect(schemas.NotificationsListResponse.properties.items.items).toEqual({
      $ref: '#/components/schemas/NotificationDto',
    });
    const tags = new Set(committed.tags.map((tag: Json) => tag.name));
    for (const { route, operation } of operations()) {
      // Every body and answer is a reference: nothing inline for a generated client to name at random.
      const body = operation.requestBody?.content['application/json'].schema;
      if (body) expect(Object.keys(body), route.operation).toEqual(['$ref']);
      const success = Object.entries(operation.responses).find(([status]) => status.startsWith('2'));
      const answer = (success?.[1] as Json | undefined)?.content?.['application/json']?.schema;
      if (answer) expect(Object.keys(answer), route.operation).toEqual(['$ref']);
      expect(operation.tags, route.operation).toHaveLength(1);
      expect(tags.has(operation.tags[0]), route.operation).toBe(true);
    }
  });

  it('states real integer bounds, never the ±(2^53 − 1) of an unbounded zod integer', () => {
    const text = JSON.stringify(committed);
    expect(text).not.toContain(String(Number.MAX_SAFE_INTEGER));
    expect(committed.components.schemas.NotificationDto.properties.id).toEqual({
      type: 'integer',
      minimum: 1,
    });
    expect(committed.components.schemas.UpdateNotificationInput.properties.hour.anyOf[0]).toEqual({
      type: 'integer',
      minimum: 0,
      maximum: 23,
    });
  });

  it('documents Retry-After on 429 and 503, and a page size above 200 as refused', () => {
    for (const status of ['429', '503']) {
      expect(committed.components.responses[`Error${status}`].headers['Retry-After']).toMatchObject({
        required: true,
      });
    }
    const list = committed.paths['/v1/deployments/{deploymentId}/notifications'].get;
    const first = list.parameters.find((parameter: Json) => parameter.name === 'first');
    expect(first.description).toMatch(/1 to 200.*larger one is refused \(400\)/);
  });

  it('names a relative server, which GET /v1/spec replaces with where it was fetched from', () => {
    expect(committed.servers).toEqual([{ url: '/', description: expect.any(String) }]);
  });

  it('declares the bearer scheme for every route but the public ones (itself, unsubscribe)', () => {
    expect(committed.components.securitySchemes.bearer).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(committed.security).toEqual([{ bearer: [] }]);
    for (const { route, operation } of operations()) {
      if (publicOperations.has(route.operation)) expect(operation.security).toEqual([]);
      else expect(operation.security).toBeUndefined();
    }
  });
});

describe('GET /v1/spec', () => {
  it('serves the document without a credential, and whatever credential comes with it', async () => {
    const anonymous = await api.request('GET', '/v1/spec');
    expect(anonymous.status).toBe(200);
    expect(anonymous.headers.get('content-type')).toMatch(/^application\/json/);
    expect(anonymous.body).toEqual({
      ...committed,
      servers: [{ url: api.baseUrl, description: 'Where this description was fetched from' }],
    });
    expect((await api.request('GET', '/v1/spec', { token: 'sk-not-a-key' })).status).toBe(200);
    expect((await api.request('GET', '/v1/spec', { token: ADMIN_KEY })).status).toBe(200);
  });

  it('refuses an unknown query parameter with 400', async () => {
    const response = await api.request('GET', '/v1/spec?format=yaml');
    expect(response.status).toBe(400);
    expect(response.body.errors[0].path).toBe('format');
  });
});

describe('the check every HTTP test runs on every answer', () => {
  const answer = (status: number, body: unknown, headers: Record<string, string> = {}) => ({
    status,
    headers: new Headers({ 'content-type': 'application/json', ...headers }),
    body,
    text: body === undefined ? '' : JSON.stringify(body),
  });

  it('finds an answer that departs from the description', () => {
    const path = '/v1/deployments/7/notifications/700';
    expect(responseProblems('GET', path, answer(200, { id: '700' })).length).toBeGreaterThan(0);
    expect(responseProblems('GET', path, answer(418, { message: 'teapot' }))).toEqual([
      'GET /v1/deployments/{deploymentId}/notifications/{id}: status 418 is not documented',
    ]);
    expect(responseProblems('GET', path, answer(404, { code: 'not_found' }))).toEqual([
      "body: must have required property 'message'",
    ]);
    expect(
      responseProblems('POST', '/v1/deployments/7/notifications', answer(401, { message: 'x' })),
    ).toEqual(['header WWW-Authenticate is missing']);
    expect(responseProblems('DELETE', path, answer(204, { unexpected: true }))).toEqual([
      'status 204 has no body in the description',
    ]);
  });

  it('accepts a conforming answer', () => {
    expect(
      responseProblems(
        'GET',
        '/v1/deployments/7/notifications',
        answer(200, {
          items: [],
          pageInfo: { startCursor: null, endCursor: null, hasNextPage: false, hasPreviousPage: false },
        }),
      ),
    ).toEqual([]);
  });
});
