import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { messageIdOf, type WebhookMessage } from '#lib/domain/webhooks/messages';
import { webhookSender } from '#lib/jobs/webhook-sender';
import { httpTransport } from '#lib/jobs/webhook-transport';
import { webhookEndpointStore } from '#lib/store/webhooks/endpoints';
import { messageItem } from '#lib/store/webhooks/message-items';
import { webhookOutbox } from '#lib/store/webhooks/messages';
import { ADMIN_KEY, consoleUsers } from '#test/support/fixtures';
import { type LocalApi, startLocalApi } from '#test/support/local-api';
import { putItems } from '#test/support/stored-items';

/**
 * One endpoint's backlog does not hide another endpoint's messages from the sender: a pass looks past
 * the due entries of a lane it cannot start (busy, or given its share) for the messages of other lanes.
 */

process.env.WEBHOOK_ALLOW_LOOPBACK = 'true';

let api: LocalApi;
const servers: Server[] = [];
/** A receiver answering 204 at once; counts what it received. */
async function receiver() {
  const state = { received: 0, url: '' };
  const server = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      state.received++;
      response.writeHead(204).end();
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
  return state;
}

beforeAll(async () => {
  api = await startLocalApi({ users: consoleUsers, deployments: [{ id: 7, name: 'Production' }] });
});
afterAll(async () => {
  for (const server of servers) server.closeAllConnections();
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  await api.close();
});

async function endpointAt(url: string) {
  const created = await api.request('POST', '/v1/deployments/7/webhooks', {
    token: ADMIN_KEY,
    body: { url, events: ['suppression.added'] },
  });
  expect(created.status, created.text).toBe(201);
  return created.body.id as string;
}

/** Pending messages to the endpoint, their events `count` milliseconds apart from `from`, all due a minute ago. */
function pending(webhookId: string, from: number, count: number): WebhookMessage[] {
  const due = new Date(Date.now() - 60_000).toISOString();
  return Array.from({ length: count }, (_, k) => {
    const eventId = `evt_${(from + k).toString(36).padStart(9, '0')}${'0'.repeat(16)}`;
    return {
      messageId: messageIdOf(eventId, webhookId),
      deploymentId: 7,
      webhookId,
      type: 'suppression.added',
      body: JSON.stringify({ type: 'suppression.added', timestamp: due, data: { k } }),
      createdAt: new Date(from + k).toISOString(),
      status: 'pending',
      attempts: 0,
      lastStatusCode: null,
      lastError: null,
      nextAttemptAt: due,
    };
  });
}

describe('a pass of the sender', () => {
  it("starts the lane of an endpoint whose messages sit behind another endpoint's 300", async () => {
    const [backlogged, other] = [await receiver(), await receiver()];
    const [backloggedId, otherId] = [await endpointAt(backlogged.url), await endpointAt(other.url)];
    const from = Date.now() - 3_600_000;
    // All due at the same instant; the other endpoint's message sorts after the whole backlog.
    await putItems(
      [...pending(backloggedId, from, 300), ...pending(otherId, from + 300, 1)].map(messageItem),
    );
    const sender = webhookSender(
      {
        outbox: webhookOutbox,
        endpoints: webhookEndpointStore,
        transport: httpTransport({ allowLoopback: true }),
      },
      { now: Date.now, sleep: async () => {} },
      () => {},
    );

    expect(await sender.pass()).toEqual({ events: 0, started: 2 });
    await sender.idle();

    expect(other.received).toBe(1);
    // The backlogged endpoint got its share of one pass, not more.
    expect(backlogged.received).toBe(5);
  });
});
