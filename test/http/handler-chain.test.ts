import { describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import { createPublicHandler } from '#lib/http/create-public-handler';
import { jsonBody } from '#lib/http/json-body';
import { TIMEOUT_RESERVE_MS } from '#lib/timeouts';
import { apiEvent, invoke, JSON_HEADERS, testRoute as route } from '#test/support/middleware';

/**
 * The chain every handler shares, called as Lambda calls it: what the operation is handed, and how
 * each kind of success is answered. The routes' own tests go through HTTP; these need no table.
 */

const thing = { id: 7, name: 'seven' };

describe('a successful operation', () => {
  it('is answered 200 with its result as JSON, not to be cached', async () => {
    const handler = createPublicHandler({ route, operation: async () => thing });
    expect(await invoke(handler)).toEqual({
      statusCode: 200,
      headers: JSON_HEADERS,
      body: JSON.stringify(thing),
    });
  });

  it('is answered with the status its declaration names', async () => {
    const handler = createPublicHandler({ route, success: { status: 202 }, operation: async () => thing });
    expect(await invoke(handler)).toMatchObject({ statusCode: 202, body: JSON.stringify(thing) });
  });

  it('that created a resource is answered 201 naming where it lives', async () => {
    const handler = createPublicHandler({
      route,
      success: { status: 201, location: (created: typeof thing) => `/v1/things/${created.id}` },
      operation: async () => thing,
    });
    expect(await invoke(handler)).toEqual({
      statusCode: 201,
      headers: { ...JSON_HEADERS, location: '/v1/things/7' },
      body: JSON.stringify(thing),
    });
  });

  it('declared 204 sends no body, only the headers every answer has', async () => {
    const handler = createPublicHandler({ route, success: { status: 204 }, operation: async () => thing });
    expect(await invoke(handler)).toEqual({
      statusCode: 204,
      headers: { 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' },
      body: '',
    });
  });

  it('declared an HTML page sends its text under its own Content-Security-Policy', async () => {
    const handler = createPublicHandler({
      route,
      success: { status: 200, html: { contentSecurityPolicy: "default-src 'none'" } },
      operation: async () => '<p>Done</p>',
    });
    expect(await invoke(handler)).toEqual({
      statusCode: 200,
      headers: {
        'content-type': 'text/html; charset=utf-8',
        'cache-control': 'no-store',
        'x-content-type-options': 'nosniff',
        'content-security-policy': "default-src 'none'",
      },
      body: '<p>Done</p>',
    });
  });
});

describe('the operation', () => {
  it('is handed the validated path parameters, query, headers and parsed body', async () => {
    const handler = createPublicHandler({
      route,
      params: z.object({ id: z.string() }),
      query: z.object({ limit: z.string() }),
      headers: z.object({ 'x-trace': z.string() }),
      body: jsonBody(z.object({ name: z.string() })),
      operation: async ({ params, query, headers, body }) => ({ params, query, headers, body }),
    });
    const response = await invoke(
      handler,
      apiEvent({
        pathParameters: { id: '7' },
        queryStringParameters: { limit: '5' },
        headers: { 'content-type': 'application/json', 'x-trace': 't-1' },
        body: '{"name":"seven"}',
      }),
    );
    expect(JSON.parse(response.body ?? '')).toEqual({
      params: { id: '7' },
      query: { limit: '5' },
      headers: { 'x-trace': 't-1' },
      body: { name: 'seven' },
    });
  });

  it('declared without a body reads none, whatever is sent', async () => {
    const handler = createPublicHandler({ route, operation: async ({ body }) => ({ body: body ?? 'none' }) });
    const response = await invoke(handler, apiEvent({ body: 'not JSON', headers: {} }));
    expect(response).toMatchObject({ statusCode: 200, body: '{"body":"none"}' });
  });

  it('with an optional body is handed {} when none is sent, and a required one is refused', async () => {
    const schema = z.object({ name: z.optional(z.string()) });
    const operation = async (input: { body: unknown }) => input.body;
    const optional = createPublicHandler({ route, body: jsonBody(schema, { optional: true }), operation });
    const required = createPublicHandler({ route, body: jsonBody(schema), operation });
    expect(await invoke(optional)).toMatchObject({ statusCode: 200, body: '{}' });
    expect(await invoke(required)).toMatchObject({
      statusCode: 400,
      body: expect.stringContaining('malformed_json'),
    });
  });

  it('is handed the base URL the request reached', async () => {
    const handler = createPublicHandler({ route, operation: async ({ baseUrl }) => baseUrl });
    const event = apiEvent({ headers: { host: 'api.example.com' } });
    expect((await invoke(handler, event)).body).toBe('"https://api.example.com"');
  });

  it("is handed the deadline of Lambda's limit, less the reserve for answering", async () => {
    const handler = createPublicHandler({ route, operation: async ({ deadline }) => deadline.remainingMs() });
    const left = Number((await invoke(handler, apiEvent(), 3_000)).body);
    expect(left).toBeLessThanOrEqual(3_000 - TIMEOUT_RESERVE_MS);
    expect(left).toBeGreaterThan(3_000 - TIMEOUT_RESERVE_MS - 1_000);
  });

  it('still running when only the reserve is left is answered 503, safe to repeat', async () => {
    const handler = createPublicHandler({ route, operation: () => new Promise<never>(() => {}) });
    const response = await invoke(handler, apiEvent(), TIMEOUT_RESERVE_MS + 50);
    expect(response).toMatchObject({ statusCode: 503, headers: { 'retry-after': '1' } });
    expect(JSON.parse(response.body ?? '')).toMatchObject({
      code: 'unavailable',
      message: 'The request ran out of time; the request is safe to repeat',
    });
  });
});

describe('a handler', () => {
  it('carries its declaration and who may call it, for the API description', () => {
    const body = jsonBody(z.object({ name: z.string() }));
    const handler = createPublicHandler({ route, body, success: { status: 204 }, operation: async () => {} });
    expect(handler.definition).toMatchObject({ route, body, success: { status: 204 }, access: 'public' });
  });
});
