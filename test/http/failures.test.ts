import { ProvisionedThroughputExceededException } from '@aws-sdk/client-dynamodb';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { documentClient } from '#lib/store/dynamo/client';
import * as keys from '#lib/store/dynamo/item-keys';
import { getItem } from '#lib/store/dynamo/items';
import { retryPolicy } from '#lib/store/dynamo/retry';
import { RETRY_AFTER_SECONDS } from '#lib/timeouts';
import { ADMIN_KEY, consoleUsers } from '#test/support/fixtures';
import { type LocalApi, startLocalApi } from '#test/support/local-api';
import { captureLogs } from '#test/support/log-capture';

// Lines are read here: the logger, built on import, must write them.
vi.hoisted(() => {
  process.env.LOG_LEVEL = 'error';
});

/** Failures a real engine cannot be made to produce, injected on the client's own middleware stack. */

let api: LocalApi;
const PATH = '/v1/deployments/7/notifications/700';
const injected = 'inject-fault';

function failOn(operation: string, error: Error): void {
  documentClient().middlewareStack.add(
    (next, context) => async (args) => {
      if (context.commandName === `${operation}Command`) throw error;
      return next(args);
    },
    { step: 'initialize', name: injected },
  );
}

beforeAll(async () => {
  api = await startLocalApi({
    users: consoleUsers,
    notifications: [{ id: 700, deploymentId: 7, dashboardId: 70, scheduleType: 'DAILY', hour: 9 }],
  });
});
afterAll(() => api.close());
afterEach(() => {
  documentClient().middlewareStack.remove(injected);
});

const named = (name: string, message: string) => Object.assign(new Error(message), { name });

describe('storage failures', () => {
  it('answers 503 unavailable when DynamoDB throttles past the SDK retries, and nothing changed', async () => {
    failOn(
      'TransactWriteItems',
      named('ProvisionedThroughputExceededException', 'Rate of requests exceeds the allowed throughput'),
    );
    const response = await api.request('PUT', PATH, { token: ADMIN_KEY, body: { hour: 3 } });
    expect(response.status).toBe(503);
    expect(response.body).toMatchObject({
      code: 'unavailable',
      message: expect.stringContaining('safe to repeat'),
    });
    expect((await getItem(keys.notification(7, 700)))?.hour).toBe(9);
  });

  it('answers 500 internal for anything unexpected, without its message, stack or names (logged instead)', async () => {
    const logs = captureLogs();
    failOn(
      'TransactWriteItems',
      named('TypeError', 'Cannot read properties of undefined (secret-internal-detail)'),
    );
    const response = await api.request('PUT', PATH, { token: ADMIN_KEY, body: { hour: 3 } });
    expect(response.status).toBe(500);
    expect(response.body).toEqual({
      message: 'Internal server error',
      code: 'internal',
      requestId: expect.any(String),
    });
    const logged = logs.text();
    logs.end();
    expect(logged).toContain(response.body.requestId);
    expect(response.text).not.toContain('secret-internal-detail');
    expect(logged).not.toContain(ADMIN_KEY);
  });

  it('refuses credentials as 503 (not 401) when the key lookup itself is throttled', async () => {
    failOn('GetItem', named('ThrottlingException', 'slow down'));
    const response = await api.request('PUT', PATH, { token: ADMIN_KEY, body: {} });
    expect(response.status).toBe(503);
  });
});

describe('API Gateway answers for what no route serves', () => {
  it.each([
    ['PATCH', PATH],
    ['POST', PATH],
    ['PUT', '/v1/deployments/7/notifications'],
    ['PUT', '/api/v1/deployments/7/notifications/700'],
    ['GET', '/'],
  ])('%s %s → 404 not_found, in the error shape', async (method, path) => {
    const response = await api.request(method, path, { token: ADMIN_KEY });
    expect(response.status).toBe(404);
    expect(response.body).toEqual({ message: 'Not Found', code: 'not_found', requestId: expect.any(String) });
  });
});

describe('the retry policy', () => {
  it('lets the SDK retry a throttled call (standard mode, its attempts only), then the store answers unavailable', async () => {
    let attempts = 0;
    const name = 'count-throttled-attempts';
    // Inside the SDK's retry step: each attempt of the call reaches this, as it would reach DynamoDB.
    documentClient().middlewareStack.add(
      (next, context) => async (args) => {
        if (context.commandName !== 'TransactWriteItemsCommand') return next(args);
        attempts += 1;
        throw new ProvisionedThroughputExceededException({
          message: 'Injected throttling',
          $metadata: { httpStatusCode: 400 },
        });
      },
      { step: 'deserialize', name },
    );
    try {
      const response = await api.request('PUT', PATH, { token: ADMIN_KEY, body: { hour: 3 } });
      expect(response.status).toBe(503);
      expect(response.headers.get('retry-after')).toBe(String(RETRY_AFTER_SECONDS));
      expect(attempts).toBe(retryPolicy.sdkMaxAttempts);
    } finally {
      documentClient().middlewareStack.remove(name);
    }
  });
});
