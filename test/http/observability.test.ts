import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { functionsFrom } from '#lib/local/handlers';
import { createLocalApi } from '#lib/local/http-adapter';
import { documentClient } from '#lib/store/dynamo/client';
import { TIMEOUT_RESERVE_MS } from '#lib/timeouts';
import { ADMIN_KEY, consoleUsers } from '#test/support/fixtures';
import { type LocalApi, startLocalApi } from '#test/support/local-api';
import { captureLogs, type LogCapture, type LogLine } from '#test/support/log-capture';
import { freshClaims, generateSigningKey, signJwt } from '#test/support/tokens';

// Lines are read here: the logger, built on import, must write them.
vi.hoisted(() => {
  process.env.LOG_LEVEL = 'info';
});

/**
 * What an operator reads in the logs: one line per request with the Lambda context, and for each kind
 * of failure a status and a line that names its cause, without the caller's credentials or stored data.
 */

const PATH = '/v1/deployments/7/notifications/700';
/** Nothing listens on port 1: every fetch of this issuer's keys fails. */
const UNREACHABLE_ISSUER = 'https://idp.unreachable.test.example';
const UNREACHABLE_JWKS = 'https://127.0.0.1:1/.well-known/jwks.json';
const injected = 'inject-fault';

let api: LocalApi;
let logs: LogCapture;

beforeAll(async () => {
  api = await startLocalApi({
    users: consoleUsers,
    notifications: [{ id: 700, deploymentId: 7, dashboardId: 70, scheduleType: 'DAILY', hour: 9 }],
    trustedIssuers: [
      { kind: 'console', issuer: UNREACHABLE_ISSUER, audience: 'console', jwksUri: UNREACHABLE_JWKS },
    ],
  });
});
afterAll(() => api.close());
afterEach(() => {
  logs?.end();
  documentClient().middlewareStack.remove(injected);
});

function failOn(operation: string, error: Error): void {
  documentClient().middlewareStack.add(
    (next, context) => async (args) => {
      if (context.commandName === `${operation}Command`) throw error;
      return next(args);
    },
    { step: 'initialize', name: injected },
  );
}

const named = (name: string, message: string) => Object.assign(new Error(message), { name });

function lineOf(requestId: string): LogLine {
  const mine = logs.lines().filter((line) => line.requestId === requestId && 'status' in line);
  expect(mine).toHaveLength(1);
  return mine[0] as LogLine;
}

describe('the request log', () => {
  it('writes one line per request with the route, status, latency and the Lambda context', async () => {
    logs = captureLogs();
    const response = await api.request('PUT', PATH, { token: ADMIN_KEY, body: { hour: 4 } });
    expect(response.status).toBe(200);
    const line = lineOf(response.headers.get('apigw-requestid') ?? '');
    expect(line).toMatchObject({
      level: 'INFO',
      message: 'request served',
      route: 'PUT /v1/deployments/{deploymentId}/notifications/{id}',
      operation: 'update-notification',
      status: 200,
      latencyMs: expect.any(Number),
      function_name: 'update-notification',
      function_request_id: expect.any(String),
      cold_start: expect.any(Boolean),
      service: expect.any(String),
    });
    // The fields, in the order Powertools Logger wrote them, so saved Logs Insights queries still match.
    expect(Object.keys(line)).toEqual([
      'level',
      'message',
      'timestamp',
      'service',
      'cold_start',
      'function_arn',
      'function_memory_size',
      'function_name',
      'function_request_id',
      'requestId',
      'operation',
      'route',
      'status',
      'latencyMs',
    ]);
    expect(line).toMatchObject({
      service: 'admin-api',
      function_arn: 'arn:aws:lambda:local:000000000000:function:update-notification',
      function_memory_size: '1024',
      timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
    });
  });

  it('logs a refusal at info with its code, and never the credential or stored personal data', async () => {
    logs = captureLogs();
    const refused = await api.request('PUT', PATH, { token: 'sk-not-a-key', body: { hour: 4 } });
    const served = await api.request('PUT', PATH, { token: ADMIN_KEY, body: { hour: 5 } });
    expect([refused.status, served.status]).toEqual([401, 200]);
    expect(lineOf(refused.body.requestId)).toMatchObject({
      level: 'INFO',
      message: 'request refused',
      status: 401,
      code: 'unauthorized',
    });
    const text = logs.text();
    for (const secret of ['sk-not-a-key', ADMIN_KEY, 'ada@example.com', 'sub-ada']) {
      expect(text).not.toContain(secret);
    }
  });
});

describe('outages answer 503 with Retry-After and a warning naming the cause', () => {
  it('a throttled table', async () => {
    logs = captureLogs();
    failOn(
      'TransactWriteItems',
      named('ProvisionedThroughputExceededException', 'Rate of requests exceeds the allowed throughput'),
    );
    const response = await api.request('PUT', PATH, { token: ADMIN_KEY, body: { hour: 3 } });
    expect(response.status).toBe(503);
    expect(response.body.code).toBe('unavailable');
    expect(Number(response.headers.get('retry-after'))).toBeGreaterThan(0);
    const line = lineOf(response.body.requestId);
    expect(line).toMatchObject({ level: 'WARN', status: 503, code: 'unavailable' });
    expect(line.error).toMatchObject({
      name: 'UnavailableError',
      cause: { name: 'ProvisionedThroughputExceededException' },
    });
  });

  it('signing keys that cannot be fetched: not 401, so that callers keep their good tokens', async () => {
    logs = captureLogs();
    const key = generateSigningKey('unreachable-1');
    const token = signJwt(freshClaims({ iss: UNREACHABLE_ISSUER, aud: 'console', sub: 'sub-ada' }), key);
    const response = await api.request('PUT', PATH, { token, body: { hour: 3 } });
    expect(response.status).toBe(503);
    expect(response.body).toMatchObject({ code: 'unavailable', message: expect.stringContaining('keys') });
    expect(Number(response.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(response.text).not.toContain('127.0.0.1');
    const line = lineOf(response.body.requestId);
    expect(line).toMatchObject({ level: 'WARN', status: 503 });
    expect(line.error).toMatchObject({
      cause: { name: 'FetchError', message: expect.stringContaining(UNREACHABLE_JWKS) },
    });
    expect(logs.text()).not.toContain(token);
    expect(logs.text()).not.toContain(token.split('.')[2]);
  });
});

describe('faults of ours', () => {
  it('answer 500 with nothing of the error, and log its class, message, stack and cause at error level', async () => {
    logs = captureLogs();
    const failure = new TypeError('Cannot read properties of undefined (reading "hour")', {
      cause: named('RootCause', 'what went wrong first'),
    });
    failOn('TransactWriteItems', failure);
    const response = await api.request('PUT', PATH, { token: ADMIN_KEY, body: { hour: 3 } });
    expect(response.status).toBe(500);
    expect(response.body).toEqual({
      message: 'Internal server error',
      code: 'internal',
      requestId: expect.any(String),
    });
    const line = lineOf(response.body.requestId);
    expect(line).toMatchObject({ level: 'ERROR', message: 'request failed', status: 500, code: 'internal' });
    expect(line.error).toMatchObject({
      name: 'TypeError',
      message: failure.message,
      stack: expect.stringContaining('TypeError'),
      cause: { name: 'RootCause', message: 'what went wrong first' },
    });
  });
});

describe('a request about to run out of time', () => {
  it('answers 503 with Retry-After before Lambda would kill it, and warns', async () => {
    // 100 ms of work allowed before the reserve kept for a clean answer; the update's write takes longer.
    const server = createLocalApi({
      resolveHandler: functionsFrom(new URL('../../functions/', import.meta.url)),
      timeoutMs: TIMEOUT_RESERVE_MS + 100,
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    documentClient().middlewareStack.add(
      (next, context) => async (args) => {
        if (context.commandName === 'TransactWriteItemsCommand')
          await new Promise((resolve) => setTimeout(resolve, 400));
        return next(args);
      },
      { step: 'initialize', name: injected },
    );
    try {
      logs = captureLogs();
      const { port } = server.address() as AddressInfo;
      const response = await fetch(`http://127.0.0.1:${port}${PATH}`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${ADMIN_KEY}`, 'content-type': 'application/json' },
        body: '{"hour":2}',
      });
      expect(response.status).toBe(503);
      expect(response.headers.get('retry-after')).not.toBeNull();
      const body = (await response.json()) as { code: string; message: string; requestId: string };
      expect(body).toMatchObject({ code: 'unavailable', message: expect.stringContaining('out of time') });
      expect(lineOf(body.requestId)).toMatchObject({ level: 'WARN', status: 503 });
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
