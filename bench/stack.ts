import { randomUUID } from 'node:crypto';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { startDynamoDbLocal } from '#lib/local/dynamodb-local';
import { functionsFrom } from '#lib/local/handlers';
import type { ResolveHandler } from '#lib/local/http-adapter';
import { type ApiResponse, startLocalApi } from '#test/support/local-api';
import { ADMIN, BENCH_UNSUBSCRIBE_KEY, EMBED_AUDIENCE } from './fixture.ts';

/**
 * The tests' local API (the real handlers, the fixture loaded) on DynamoDB Local or the engine
 * DYNAMODB_ENDPOINT names, in a table of this run's own, and a plain low-level client beside it.
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
  // As under `npm start`: the webhook section's receivers listen on the loopback.
  process.env.WEBHOOK_ALLOW_LOOPBACK = 'true';
  const engine = process.env.DYNAMODB_ENDPOINT ? undefined : await startDynamoDbLocal();
  process.env.DYNAMODB_ENDPOINT ??= engine?.endpoint;
  const invocations = timedInvocations(functionsFrom(new URL('../functions/', import.meta.url)));
  const api = await startLocalApi(fixture, invocations.resolve);
  const credentials = { accessKeyId: 'local', secretAccessKey: 'local' };
  const bareClient = new DynamoDBClient({ endpoint: process.env.DYNAMODB_ENDPOINT, credentials });
  const close = async () => {
    bareClient.destroy();
    await api.close();
    engine?.stop();
  };
  const call = async (method: string, path: string, status: number, body?: unknown) => {
    const reply = await api.request(method, path, { authorization: ADMIN, body });
    return expectStatus(reply, status, `${method} ${path}`);
  };
  return { request: api.request, call, bareClient, close, lastInvocationMs: invocations.last };
}

/**
 * The handlers, each invocation timed from the event handed over to the answer returned: what Lambda
 * runs and bills, without the local HTTP hop, which deployed is API Gateway's.
 */
function timedInvocations(resolveHandler: ResolveHandler) {
  let lastMs = Number.NaN;
  const resolve: ResolveHandler = async (operation) => {
    const handler = await resolveHandler(operation);
    return async (event, context) => {
      const startedAt = performance.now();
      try {
        return await handler(event, context);
      } finally {
        lastMs = performance.now() - startedAt;
      }
    };
  };
  return { resolve, last: () => lastMs };
}

export type Stack = Awaited<ReturnType<typeof startStack>>;

export function expectStatus(reply: ApiResponse, expected: number, what: string): ApiResponse {
  if (reply.status === expected) return reply;
  throw new Error(`${what} answered ${reply.status}, expected ${expected}: ${reply.text.slice(0, 300)}`);
}
