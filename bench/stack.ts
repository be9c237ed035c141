import { randomUUID } from 'node:crypto';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { startDynamoDbLocal } from '#lib/local/dynamodb-local';
import { createLocalApi } from '#lib/local/http-adapter';
import { type ApiResponse, serveLocally, startLocalApi } from '#test/support/local-api';
import { ADMIN, BENCH_UNSUBSCRIBE_KEY, EMBED_AUDIENCE } from './fixture.ts';

/**
 * What the request scenarios run against: the tests' local API (the real handlers behind the local
 * HTTP adapter, the fixture loaded) on DynamoDB Local, or the engine DYNAMODB_ENDPOINT names, in a
 * table of this run's own. Beside it, the same adapter in front of a handler that does nothing (the
 * local HTTP hop alone, which API Gateway does in AWS) and a plain low-level client (the "bare" side).
 */
export async function startStack(fixture: unknown) {
  // The handlers read their configuration on first use, which comes after this.
  process.env.TABLE_NAME = `bench-${randomUUID().slice(0, 8)}`;
  process.env.AWS_REGION ??= 'us-east-1';
  // Long enough that a warm request never looks its caller up again; the cold path is measured apart.
  process.env.PRINCIPAL_CACHE_SECONDS = process.env.EMBED_KEYS_CACHE_SECONDS = '3600';
  process.env.EMBED_AUDIENCE = EMBED_AUDIENCE;
  process.env.UNSUBSCRIBE_SIGNING_KEY = BENCH_UNSUBSCRIBE_KEY.toString('base64');
  // The scenarios send the same notification again and again; the send-now limit would refuse them.
  process.env.SEND_NOW_MIN_INTERVAL_SECONDS = '0';
  const engine = process.env.DYNAMODB_ENDPOINT ? undefined : await startDynamoDbLocal();
  process.env.DYNAMODB_ENDPOINT ??= engine?.endpoint;
  const api = await startLocalApi(fixture);
  const nothing = async () => ({
    statusCode: 200,
    headers: { 'content-type': 'application/json' },
    body: '{}',
  });
  const noop = await serveLocally(createLocalApi({ resolveHandler: async () => nothing }));
  const credentials = { accessKeyId: 'local', secretAccessKey: 'local' };
  const bareClient = new DynamoDBClient({ endpoint: process.env.DYNAMODB_ENDPOINT, credentials });
  const close = async () => {
    bareClient.destroy();
    await Promise.all([api.close(), noop.close()]);
    engine?.stop();
  };
  /** A request of the demo admin, once it has the status expected. */
  const call = async (method: string, path: string, status: number, body?: unknown) =>
    expectStatus(
      await api.request(method, path, { authorization: ADMIN, body }),
      status,
      `${method} ${path}`,
    );
  return { request: api.request, call, hop: noop.request, bareClient, close };
}

export type Stack = Awaited<ReturnType<typeof startStack>>;

/** The reply, once it has the status expected. */
export function expectStatus(reply: ApiResponse, expected: number, what: string): ApiResponse {
  if (reply.status === expected) return reply;
  throw new Error(`${what} answered ${reply.status}, expected ${expected}: ${reply.text.slice(0, 300)}`);
}
