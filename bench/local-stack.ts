import { randomUUID } from 'node:crypto';
import { Agent, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { parseFixture } from '#lib/fixtures/fixture';
import { ensureTable, loadFixture } from '#lib/fixtures/load-fixture';
import { startDynamoDbLocal } from '#lib/local/dynamodb-local';
import { functionsFrom } from '#lib/local/handlers';
import { createLocalApi } from '#lib/local/http-adapter';
import { EMBED_AUDIENCE } from './fixture.ts';

/**
 * What the per-request scenarios run against: DynamoDB Local (or the engine DYNAMODB_ENDPOINT names),
 * a table of this run's own, the fixture, and the real handlers behind the local HTTP adapter.
 */

export interface Reply {
  status: number;
  text: string;
}

interface RequestOptions {
  authorization?: string;
  body?: unknown;
}

export interface LocalStack {
  endpoint: string;
  /** A plain low-level client of its own: the "bare" side of every comparison. */
  bareClient: DynamoDBClient;
  request(method: string, path: string, options?: RequestOptions): Promise<Reply>;
  /** The same, on connections of its own: requests sent at once reach the handlers at once. */
  requestInParallel(method: string, path: string, options?: RequestOptions): Promise<Reply>;
  /**
   * The same request through the same adapter to a handler that does nothing: what the local HTTP
   * hop costs (client and server in this process), which API Gateway does in AWS, outside the function.
   */
  transport(method: string, path: string, options?: RequestOptions): Promise<Reply>;
  close(): Promise<void>;
}

/** Long enough that a warm request never looks its caller up again; the cold path is measured apart. */
const CACHE_SECONDS = '3600';

export async function startLocalStack(fixtureInput: unknown): Promise<LocalStack> {
  const fixture = parseFixture(fixtureInput);
  // The handlers read their configuration on first use, which comes after this.
  process.env.TABLE_NAME = `bench-${randomUUID().slice(0, 8)}`;
  process.env.AWS_REGION ??= 'us-east-1';
  process.env.PRINCIPAL_CACHE_SECONDS = CACHE_SECONDS;
  process.env.EMBED_KEYS_CACHE_SECONDS = CACHE_SECONDS;
  process.env.EMBED_AUDIENCE = EMBED_AUDIENCE;
  process.env.TRUSTED_ISSUERS = JSON.stringify(fixture.trustedIssuers);
  // The per-request figures send the same notification again and again; the limit would refuse them.
  process.env.SEND_NOW_MIN_INTERVAL_SECONDS = '0';
  const engine = process.env.DYNAMODB_ENDPOINT ? undefined : await startDynamoDbLocal();
  if (engine) process.env.DYNAMODB_ENDPOINT = engine.endpoint;
  const endpoint = process.env.DYNAMODB_ENDPOINT as string;

  await ensureTable();
  await loadFixture(fixture);

  const api = await serve(
    createLocalApi({ resolveHandler: functionsFrom(new URL('../functions/', import.meta.url)) }),
  );
  const noop = await serve(
    createLocalApi({
      resolveHandler: async () => async () => ({
        statusCode: 200,
        headers: { 'content-type': 'application/json' },
        body: '{}',
      }),
    }),
  );

  const bareClient = new DynamoDBClient({
    endpoint,
    region: process.env.AWS_REGION,
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });

  return {
    endpoint,
    bareClient,
    request: api.request,
    requestInParallel: api.requestInParallel,
    transport: noop.request,
    close: async () => {
      bareClient.destroy();
      await Promise.all([api.close(), noop.close()]);
      engine?.stop();
    },
  };
}

/** Listens on a free port and sends requests to it over one kept-alive connection, as API Gateway keeps its own. */
async function serve(server: Server): Promise<{
  request: LocalStack['request'];
  requestInParallel: LocalStack['request'];
  close(): Promise<void>;
}> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const parallelAgent = new Agent({ keepAlive: true, maxSockets: 64 });
  const send =
    (agent: Agent): LocalStack['request'] =>
    (method, path, options = {}) =>
      new Promise((resolve, reject) => {
        const body = options.body === undefined ? undefined : JSON.stringify(options.body);
        const headers: Record<string, string> = {};
        if (options.authorization) headers.authorization = options.authorization;
        if (body !== undefined) {
          headers['content-type'] = 'application/json';
          headers['content-length'] = String(Buffer.byteLength(body));
        }
        const outgoing = httpRequest(
          { host: '127.0.0.1', port, method, path, headers, agent },
          (response) => {
            const parts: Buffer[] = [];
            response.on('data', (part: Buffer) => parts.push(part));
            response.on('end', () =>
              resolve({ status: response.statusCode ?? 0, text: Buffer.concat(parts).toString('utf8') }),
            );
            response.on('error', reject);
          },
        );
        outgoing.on('error', reject);
        outgoing.end(body);
      });
  return {
    request: send(agent),
    requestInParallel: send(parallelAgent),
    close: async () => {
      agent.destroy();
      parallelAgent.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
