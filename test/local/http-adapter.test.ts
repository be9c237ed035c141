import { Agent, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildEvent, createLocalApi, lambdaContext, matchRoute } from '#lib/local/http-adapter';
import { routes } from '#lib/routes';
import { ADMIN_KEY, consoleUsers } from '#test/support/fixtures';
import { type LocalApi, startLocalApi } from '#test/support/local-api';

describe('matchRoute', () => {
  it('serves every route of the table and decodes path parameters', () => {
    expect(matchRoute('PUT', '/v1/deployments/7/notifications/700')).toEqual({
      route: routes[0],
      pathParameters: { deploymentId: '7', id: '700' },
    });
    expect(matchRoute('GET', '/v1/embed/dashboard/sales%20overview')).toMatchObject({
      pathParameters: { publicId: 'sales overview' },
    });
    for (const route of routes) {
      const path = route.path.replace(/\{\w+\}/g, '1');
      expect(matchRoute(route.method, path)?.route).toBe(route);
    }
  });

  it('matches neither other methods nor longer paths', () => {
    expect(matchRoute('POST', '/v1/deployments/7/notifications/700')).toBeUndefined();
    expect(matchRoute('PUT', '/v1/deployments/7/notifications/700/x')).toBeUndefined();
  });

  it('names a path parameter whose percent-encoding is malformed (answered 400, not 404)', () => {
    expect(matchRoute('GET', '/v1/embed/dashboard/%E0%A4%A')).toEqual({
      route: routes.find((route) => route.operation === 'get-embedded-dashboard'),
      malformedParameter: 'publicId',
    });
  });
});

describe('buildEvent builds the HTTP API payload 2.0 event', () => {
  const route = routes[0];

  it('carries the route, raw path and query, lower-cased headers and a text body', () => {
    const event = buildEvent(
      {
        method: 'PUT',
        url: '/v1/deployments/7/notifications/700?a=1&a=2&b=x',
        headers: { 'content-type': 'application/json', host: 'localhost:3000', cookie: 'c1=v1; c2=v2' },
        body: Buffer.from('{"hour":9}'),
      },
      route,
      { deploymentId: '7', id: '700' },
    );
    expect(event).toMatchObject({
      version: '2.0',
      routeKey: 'PUT /v1/deployments/{deploymentId}/notifications/{id}',
      rawPath: '/v1/deployments/7/notifications/700',
      rawQueryString: 'a=1&a=2&b=x',
      queryStringParameters: { a: '1,2', b: 'x' },
      cookies: ['c1=v1', 'c2=v2'],
      pathParameters: { deploymentId: '7', id: '700' },
      body: '{"hour":9}',
      isBase64Encoded: false,
      requestContext: {
        routeKey: 'PUT /v1/deployments/{deploymentId}/notifications/{id}',
        stage: '$default',
        http: { method: 'PUT', path: '/v1/deployments/7/notifications/700', protocol: 'HTTP/1.1' },
      },
    });
    expect(event.requestContext.requestId).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('base64-encodes a body that is not text, and omits an empty one', () => {
    const binary = buildEvent(
      {
        method: 'PUT',
        url: '/x',
        headers: { 'content-type': 'application/octet-stream' },
        body: Buffer.from([0, 255]),
      },
      route,
      {},
    );
    expect(binary).toMatchObject({ body: 'AP8=', isBase64Encoded: true });
    expect(
      buildEvent({ method: 'PUT', url: '/x', headers: {}, body: Buffer.alloc(0) }, route, {}),
    ).not.toHaveProperty('body');
  });
});

describe('a handler invoked with an event as API Gateway sends it', () => {
  let api: LocalApi;
  beforeAll(async () => {
    api = await startLocalApi({
      users: consoleUsers,
      notifications: [{ id: 700, deploymentId: 7, dashboardId: 70, scheduleType: 'DAILY', hour: 9 }],
    });
  });
  afterAll(() => api.close());

  it('answers the structured result API Gateway expects', async () => {
    const { handler } = await import('#functions/update-notification');
    // The shape of an HTTP API v2 event as delivered in AWS, base64 body and all.
    const event: APIGatewayProxyEventV2 = {
      version: '2.0',
      routeKey: 'PUT /v1/deployments/{deploymentId}/notifications/{id}',
      rawPath: '/v1/deployments/7/notifications/700',
      rawQueryString: '',
      headers: {
        authorization: `Bearer ${ADMIN_KEY}`,
        'content-type': 'application/json',
        'content-length': '12',
        host: 'abc123.execute-api.eu-central-1.amazonaws.com',
        'x-forwarded-for': '203.0.113.9',
        'x-forwarded-proto': 'https',
      },
      requestContext: {
        accountId: '123456789012',
        apiId: 'abc123',
        domainName: 'abc123.execute-api.eu-central-1.amazonaws.com',
        domainPrefix: 'abc123',
        http: {
          method: 'PUT',
          path: '/v1/deployments/7/notifications/700',
          protocol: 'HTTP/1.1',
          sourceIp: '203.0.113.9',
          userAgent: 'curl/8',
        },
        requestId: 'JKJaXmPLvHcESHA=',
        routeKey: 'PUT /v1/deployments/{deploymentId}/notifications/{id}',
        stage: '$default',
        time: '23/Nov/2026:09:00:00 +0000',
        timeEpoch: 1795424400000,
      },
      pathParameters: { deploymentId: '7', id: '700' },
      body: Buffer.from('{"minute":30}').toString('base64'),
      isBase64Encoded: true,
    };
    const result = await handler(event, lambdaContext('update-notification', 3000, 'invocation-1'));
    expect(result.statusCode).toBe(200);
    expect(result.headers).toEqual({
      'content-type': 'application/json',
      'cache-control': 'no-store',
      'x-content-type-options': 'nosniff',
    });
    expect(JSON.parse(result.body as string).cronExpression).toBe('30 9 * * *');

    const refused = await handler(
      { ...event, headers: { ...event.headers, authorization: 'Bearer sk-wrong' } },
      lambdaContext('x', 3000, 'i2'),
    );
    expect(refused.statusCode).toBe(401);
    expect(JSON.parse(refused.body as string).requestId).toBe('JKJaXmPLvHcESHA=');
  });
});

describe('the local server on its own', () => {
  /** Serves `server` on a free port of 127.0.0.1 for the test's duration. */
  async function listening(server: Server): Promise<{ port: number; close: () => Promise<void> }> {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return {
      port: (server.address() as AddressInfo).port,
      close: () => new Promise<void>((resolve) => server.close(() => resolve())),
    };
  }

  it("answers a function that outlives its timeout 503, with Retry-After and the route's repeat advice", async () => {
    const never = async () => new Promise<never>(() => {});
    const { port, close } = await listening(
      createLocalApi({ resolveHandler: async () => never, timeoutMs: 100 }),
    );
    try {
      const read = await fetch(`http://127.0.0.1:${port}/v1/deployments/7/notifications/700`);
      expect(read.status).toBe(503);
      expect(read.headers.get('retry-after')).toBe('1');
      expect(await read.json()).toMatchObject({
        code: 'unavailable',
        message: 'The function did not answer within its timeout; the request is safe to repeat',
      });
      const create = await fetch(`http://127.0.0.1:${port}/v1/deployments/7/notifications`, {
        method: 'POST',
      });
      expect(create.status).toBe(503);
      const { message } = (await create.json()) as { message: string };
      expect(message).toMatch(/repeat it with the same Idempotency-Key header so that it is not done twice/);
      expect(message).not.toContain('safe to repeat');
    } finally {
      await close();
    }
  });

  it('answers a body over 10 MiB 413 and keeps the connection usable for the next request', async () => {
    const { port, close } = await listening(
      createLocalApi({ resolveHandler: async () => async () => ({ statusCode: 200, body: '{}' }) }),
    );
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const send = (body: string) =>
      new Promise<{ status: number; reusedSocket: boolean }>((resolve, reject) => {
        const request = httpRequest(
          {
            host: '127.0.0.1',
            port,
            agent,
            method: 'PUT',
            path: '/v1/deployments/7/notifications/700',
            headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
          },
          (response) => {
            response.resume();
            response.on('end', () =>
              resolve({ status: response.statusCode ?? 0, reusedSocket: request.reusedSocket }),
            );
          },
        );
        request.on('error', reject);
        request.end(body);
      });
    try {
      expect(await send(`"${'x'.repeat(16 * 1024 * 1024)}"`)).toEqual({
        status: 413,
        reusedSocket: false,
      });
      expect(await send('{}')).toEqual({ status: 200, reusedSocket: true });
    } finally {
      agent.destroy();
      await close();
    }
  });
});
