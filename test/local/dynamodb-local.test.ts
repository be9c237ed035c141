import { connect } from 'node:net';
import { describe, expect, inject, it } from 'vitest';

/**
 * The engine the tests run on is started as `npm start` starts its own (lib/local/dynamodb-local.ts):
 * on the loopback address alone. An engine that listened on every interface would also take a
 * connection to the IPv6 loopback, which is the machine's own too.
 */

/** Whether a TCP connection to `host`:`port` is accepted. */
const accepts = (host: string, port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect({ host, port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });

describe('DynamoDB Local as started here', () => {
  it('listens on 127.0.0.1 and on no other address', async () => {
    const { port } = new URL(inject('dynamoDbEndpoint'));
    expect(await accepts('127.0.0.1', Number(port))).toBe(true);
    expect(await accepts('::1', Number(port))).toBe(false);
  });
});
