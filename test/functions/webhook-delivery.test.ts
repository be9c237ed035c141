import { readdir, readFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { config } from '#lib/config';
import { webhookSender } from '#lib/jobs/webhook-sender';
import { httpTransport } from '#lib/jobs/webhook-transport';
import { getItem } from '#lib/store/dynamo/items';
import { webhookEndpointStore } from '#lib/store/webhooks/endpoints';
import { outboxEvent } from '#lib/store/webhooks/keys';
import { webhookOutbox } from '#lib/store/webhooks/messages';
import { startDnsServer } from '#test/support/dns-server';
import { ADMIN_KEY, publishedDashboardFixture } from '#test/support/fixtures';
import { type LocalApi, startLocalApi } from '#test/support/local-api';
import { platformRenderer } from '#test/support/tokens';

/**
 * Webhook messages end to end, as `npm start` runs them (http:// to the loopback allowed): a change
 * records its event with itself; a sender (any sender, also one started after the process that made the
 * change died) turns it into signed messages that a customer verifies with the Standard Webhooks
 * reference library; failures are tried again with the same `webhook-id`.
 */

process.env.WEBHOOK_ALLOW_LOOPBACK = 'true';
process.env.SEND_NOW_MIN_INTERVAL_SECONDS = '0';

const platform = platformRenderer('webhooks');
const RENDERER = () => platform.token();
const notifications = '/v1/deployments/7/notifications';
const webhooks = '/v1/deployments/7/webhooks';

interface Received {
  headers: Record<string, string>;
  body: string;
}

/** A customer's endpoint: records what it is sent and answers as `answer` says, request by request. */
class Receiver {
  readonly received: Received[] = [];
  answer: (n: number) => { status: number; delayMs?: number } = () => ({ status: 204 });
  readonly server: Server = createServer(async (request: IncomingMessage, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const headers = Object.fromEntries(
      Object.entries(request.headers).map(([name, value]) => [name, String(value)]),
    );
    this.received.push({ headers, body: Buffer.concat(chunks).toString('utf8') });
    const { status, delayMs = 0 } = this.answer(this.received.length);
    setTimeout(() => response.writeHead(status).end('receiver says so'), delayMs);
  });
  url = '';
  async start() {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hooks`;
    return this;
  }
  close() {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(resolve));
  }
}

let api: LocalApi;
const receivers: Receiver[] = [];
const receiver = async () => {
  const started = await new Receiver().start();
  receivers.push(started);
  return started;
};

beforeAll(async () => {
  api = await startLocalApi(
    publishedDashboardFixture({
      platform,
      notifications: [700, 701, 702, 703].map((id) => ({
        id,
        deploymentId: 7,
        dashboardId: 70,
        scheduleType: 'DAILY',
        hour: 9,
        isEnabled: false,
        recipients: [{ userId: 1 }],
      })),
    }),
  );
});
afterAll(async () => {
  await Promise.all(receivers.map((started) => started.close()));
  await api.close();
});

/** A sender of its own, as a fresh process would start one, at `offsetMs` from now on the clock. */
function newSender(offsetMs = 0) {
  const clock = { now: () => Date.now() + offsetMs, sleep: async () => {} };
  return webhookSender(
    {
      outbox: webhookOutbox,
      endpoints: webhookEndpointStore,
      transport: httpTransport({ allowLoopback: true }),
    },
    clock,
    () => {},
  );
}

/** One pass and its lanes to the end. */
async function sendDue(offsetMs = 0) {
  const sender = newSender(offsetMs);
  await sender.pass();
  await sender.idle();
}

async function createEndpoint(url: string, events: string[] = ['*']) {
  const created = await api.request('POST', webhooks, { token: ADMIN_KEY, body: { url, events } });
  expect(created.status, created.text).toBe(201);
  return created.body as { id: string; secret: string };
}

/** A send-now of `id`'s one recipient, dispatched: the run and its job. */
async function sentRun(id: number): Promise<{ runId: string; jobId: string; unsubscribeUrl: string }> {
  const answer = await api.request('POST', `${notifications}/${id}/send`, { token: ADMIN_KEY });
  expect(answer.status, answer.text).toBe(202);
  const { runId } = answer.body;
  const dir = config().outboxDir;
  for (const file of await readdir(dir)) {
    const job = JSON.parse(await readFile(join(dir, file), 'utf8'));
    if (job.runId === runId) return { runId, jobId: job.jobId, unsubscribeUrl: job.unsubscribeUrl };
  }
  throw new Error(`no job of run ${runId}`);
}

const report = (jobId: string, body: object) =>
  api.request('POST', `/v1/deliveries/${encodeURIComponent(jobId)}/outcome`, { token: RENDERER(), body });

/** What a customer's handler does: verify with the reference library, then read the body. */
const verified = (secret: string, message: Received) =>
  new Webhook(secret).verify(message.body, message.headers) as {
    type: string;
    timestamp: string;
    // biome-ignore lint/suspicious/noExplicitAny: tests read the payload by path; a wrong path fails the assertion.
    data: any;
  };

const bodies = (at: Receiver) => at.received.map((message) => JSON.parse(message.body));

describe('messages of a run', () => {
  it('arrive signed as Standard Webhooks defines, verified by the reference library', async () => {
    const at = await receiver();
    const endpoint = await createEndpoint(at.url, ['run.completed', 'delivery.failed']);
    const run = await sentRun(700);
    expect((await report(run.jobId, { status: 'delivered', attempt: 1 })).status).toBe(204);
    await sendDue();

    expect(at.received).toHaveLength(1);
    const [message] = at.received as [Received];
    expect(message.headers['content-type']).toBe('application/json');
    expect(message.headers['webhook-id']).toMatch(/^msg_/);
    expect(message.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    const payload = verified(endpoint.secret, message);
    expect(payload.type).toBe('run.completed');
    expect(Date.parse(payload.timestamp)).not.toBeNaN();
    expect(payload.data).toMatchObject({
      runId: run.runId,
      status: 'completed',
      recipients: { delivered: 1 },
    });
    // Another secret does not verify it: the signature is the secret's.
    expect(() => verified(`whsec_${Buffer.alloc(32, 9).toString('base64')}`, message)).toThrow();

    await api.request('DELETE', `${webhooks}/${endpoint.id}`, { token: ADMIN_KEY });
  });

  it('a receiver answering 500 then 200 gets the same webhook-id twice, and the message ends delivered', async () => {
    const at = await receiver();
    at.answer = (n) => ({ status: n === 1 ? 500 : 200 });
    const endpoint = await createEndpoint(at.url, ['run.completed_with_failures']);
    const run = await sentRun(701);
    expect((await report(run.jobId, { status: 'failed', attempt: 1, error: 'mailbox full' })).status).toBe(
      204,
    );
    await sendDue();
    expect(at.received).toHaveLength(1);
    const messages = `${webhooks}/${endpoint.id}/messages`;
    const pending = await api.request('GET', messages, { token: ADMIN_KEY });
    expect(pending.body.items).toEqual([
      expect.objectContaining({
        type: 'run.completed_with_failures',
        status: 'pending',
        attempts: 1,
        lastStatusCode: 500,
        lastError: expect.stringContaining('receiver says so'),
      }),
    ]);
    // Not before its retry is due (5 seconds): a pass now sends nothing.
    await sendDue();
    expect(at.received).toHaveLength(1);
    await sendDue(6_000);

    expect(at.received).toHaveLength(2);
    const [first, second] = at.received as [Received, Received];
    expect(second.headers['webhook-id']).toBe(first.headers['webhook-id']);
    expect(verified(endpoint.secret, second).type).toBe('run.completed_with_failures');
    const delivered = await api.request('GET', messages, { token: ADMIN_KEY });
    expect(delivered.body.items).toEqual([
      expect.objectContaining({ status: 'delivered', attempts: 2, lastStatusCode: 200, nextAttemptAt: null }),
    ]);

    // Sent once more on request: 202, and the same message arrives a third time.
    const messageId = delivered.body.items[0].messageId;
    const retried = await api.request('POST', `${messages}/${messageId}/retry`, { token: ADMIN_KEY });
    expect(retried.status, retried.text).toBe(202);
    expect(retried.body).toMatchObject({ messageId, status: 'pending' });
    await sendDue();
    expect(at.received.map((message) => message.headers['webhook-id'])).toEqual([
      first.headers['webhook-id'],
      first.headers['webhook-id'],
      first.headers['webhook-id'],
    ]);
    await api.request('DELETE', `${webhooks}/${endpoint.id}`, { token: ADMIN_KEY });
  });

  it('still arrives when the process that completed the run died before sending it', async () => {
    const at = await receiver();
    const endpoint = await createEndpoint(at.url, ['run.completed']);
    const run = await sentRun(702);
    // The report is the whole of that process's work: it records the message and sends nothing.
    expect((await report(run.jobId, { status: 'delivered', attempt: 1 })).status).toBe(204);
    expect(at.received).toEqual([]);
    // A sender started afterwards, knowing nothing of that process, finds it in the table.
    await sendDue();
    expect(bodies(at)).toEqual([expect.objectContaining({ type: 'run.completed' })]);
    expect(verified(endpoint.secret, at.received[0] as Received).data.runId).toBe(run.runId);
    await api.request('DELETE', `${webhooks}/${endpoint.id}`, { token: ADMIN_KEY });
  });
});

describe('events of other changes', () => {
  it('delivery.failed, recipient.unsubscribed and notification.deleted, each recorded with its change', async () => {
    const at = await receiver();
    const endpoint = await createEndpoint(at.url, [
      'delivery.failed',
      'recipient.unsubscribed',
      'notification.deleted',
    ]);
    const run = await sentRun(703);
    expect((await report(run.jobId, { status: 'failed', attempt: 1, error: 'bounced' })).status).toBe(204);
    const { pathname, search } = new URL(run.unsubscribeUrl);
    expect((await api.request('POST', `${pathname}${search}`)).status).toBe(200);
    // A repeat removes nothing more, and records nothing more.
    expect((await api.request('POST', `${pathname}${search}`)).status).toBe(200);
    expect((await api.request('DELETE', `${notifications}/703`, { token: ADMIN_KEY })).status).toBe(204);
    await sendDue();
    const types = at.received.map((message) => verified(endpoint.secret, message));
    expect(types).toEqual([
      expect.objectContaining({
        type: 'delivery.failed',
        data: expect.objectContaining({ deploymentId: 7, notificationId: 703, runId: run.runId }),
      }),
      expect.objectContaining({
        type: 'recipient.unsubscribed',
        data: {
          deploymentId: 7,
          notificationId: 703,
          recipient: expect.objectContaining({ type: 'USER', userId: 1 }),
        },
      }),
      expect.objectContaining({
        type: 'notification.deleted',
        data: { deploymentId: 7, notificationId: 703 },
      }),
    ]);
    await api.request('DELETE', `${webhooks}/${endpoint.id}`, { token: ADMIN_KEY });
  });

  it('suppression.added once per address: from a hard bounce and from an admin, none when it stood already', async () => {
    const at = await receiver();
    const endpoint = await createEndpoint(at.url, ['suppression.added', 'delivery.failed']);
    const suppressions = '/v1/deployments/7/suppressions';
    // Two jobs to ada queued before any suppression of her address.
    const first = await sentRun(702);
    const second = await sentRun(701);
    const bounce = { status: 'failed', attempt: 1, error: 'no such mailbox', bounce: 'hard' };
    expect((await report(first.jobId, bounce)).status).toBe(204);
    // The address stands suppressed already: this bounce's failure is recorded, no second addition.
    expect((await report(second.jobId, bounce)).status).toBe(204);
    const again = await api.request('POST', suppressions, {
      token: ADMIN_KEY,
      body: { email: 'ADA@example.com' },
    });
    expect(again.body).toMatchObject({ reason: 'hard_bounce', source: { runId: first.runId } });
    expect(
      (await api.request('POST', suppressions, { token: ADMIN_KEY, body: { email: 'gone@example.com' } }))
        .status,
    ).toBe(201);
    await sendDue();

    const payloads = at.received.map((message) => verified(endpoint.secret, message));
    const added = payloads.filter((payload) => payload.type === 'suppression.added').map((p) => p.data);
    expect(added).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          email: 'ada@example.com',
          reason: 'hard_bounce',
          source: { runId: first.runId, jobId: first.jobId },
        }),
        expect.objectContaining({ email: 'gone@example.com', reason: 'manual', source: null }),
      ]),
    );
    expect(added).toHaveLength(2);
    expect(
      payloads
        .filter((payload) => payload.type === 'delivery.failed')
        .map((p) => p.data.runId)
        .sort(),
    ).toEqual([first.runId, second.runId].sort());
    for (const email of ['ada@example.com', 'gone@example.com'])
      await api.request('DELETE', `${suppressions}/${encodeURIComponent(email)}`, { token: ADMIN_KEY });
    await api.request('DELETE', `${webhooks}/${endpoint.id}`, { token: ADMIN_KEY });
  });

  it('records nothing for a type no endpoint subscribes to', async () => {
    const at = await receiver();
    const endpoint = await createEndpoint(at.url, ['run.skipped']);
    const run = await sentRun(700);
    expect((await report(run.jobId, { status: 'delivered', attempt: 1 })).status).toBe(204);
    const due = await webhookOutbox.due(Date.now() + 60_000, 100);
    expect(due).toEqual([]);
    await api.request('DELETE', `${webhooks}/${endpoint.id}`, { token: ADMIN_KEY });
  });
});

describe('signing secrets', () => {
  it('after a rotation both secrets sign for 24 hours: two signatures, each verifying alone', async () => {
    const at = await receiver();
    const endpoint = await createEndpoint(at.url, ['run.completed']);
    const rotated = await api.request('POST', `${webhooks}/${endpoint.id}/rotate-secret`, {
      token: ADMIN_KEY,
    });
    const run = await sentRun(700);
    await report(run.jobId, { status: 'delivered', attempt: 1 });
    await sendDue();
    const [message] = at.received as [Received];
    expect(message.headers['webhook-signature']?.split(' ')).toHaveLength(2);
    expect(verified(endpoint.secret, message).type).toBe('run.completed');
    expect(verified(rotated.body.secret, message).type).toBe('run.completed');
    // Each signature alone verifies under its own secret.
    const [newest, older] = (message.headers['webhook-signature'] ?? '').split(' ') as [string, string];
    expect(
      verified(rotated.body.secret, {
        ...message,
        headers: { ...message.headers, 'webhook-signature': newest },
      }).type,
    ).toBe('run.completed');
    expect(
      verified(endpoint.secret, { ...message, headers: { ...message.headers, 'webhook-signature': older } })
        .type,
    ).toBe('run.completed');
    await api.request('DELETE', `${webhooks}/${endpoint.id}`, { token: ADMIN_KEY });
  });
});

describe('endpoints apart', () => {
  it('an endpoint that takes 2 seconds an answer does not hold back another', async () => {
    const slow = await receiver();
    const fast = await receiver();
    let slowAnswered = false;
    slow.answer = () => ({ status: 200, delayMs: 2_000 });
    slow.server.on('request', (_request, response) => response.on('finish', () => (slowAnswered = true)));
    const slowEndpoint = await createEndpoint(slow.url, ['run.completed']);
    const fastEndpoint = await createEndpoint(fast.url, ['run.completed']);
    const run = await sentRun(700);
    await report(run.jobId, { status: 'delivered', attempt: 1 });
    const sender = newSender();
    await sender.pass();
    // The fast endpoint has its message while the slow one's answer is still to come.
    await expect.poll(() => fast.received.length).toBe(1);
    expect(slow.received).toHaveLength(1);
    expect(slowAnswered).toBe(false);
    await sender.idle();
    expect(slowAnswered).toBe(true);
    for (const id of [slowEndpoint.id, fastEndpoint.id])
      await api.request('DELETE', `${webhooks}/${id}`, { token: ADMIN_KEY });
  });
});

describe('where a message may go, at the moment it is sent', () => {
  it('is refused for the metadata address and for a name resolving to 127.0.0.1, before connecting', async () => {
    const at = await receiver();
    // The customer's name server now answers their host with 127.0.0.1 (it was public at create).
    const dns = await startDnsServer('127.0.0.1');
    const deployed = httpTransport({ allowLoopback: false }, dns.server);
    const port = new URL(at.url).port;
    const headers = { 'content-type': 'application/json' };
    const metadata = await deployed('https://169.254.169.254/latest/meta-data/', headers, '{}');
    const rebound = await deployed(`https://hooks.customer.example:${port}/hooks`, headers, '{}');
    const plain = await deployed(`http://hooks.customer.example:${port}/hooks`, headers, '{}');
    await dns.close();
    for (const result of [metadata, rebound, plain]) {
      expect(result).toEqual({ statusCode: null, error: expect.stringMatching(/^refused/) });
    }
    expect(at.received).toEqual([]);
  });

  it('does not follow a redirect: a 3xx is a failed attempt', async () => {
    const at = await receiver();
    at.answer = () => ({ status: 307 });
    const local = httpTransport({ allowLoopback: true });
    expect(await local(at.url, {}, '{}')).toMatchObject({ statusCode: 307 });
    expect(at.received).toHaveLength(1);
  });
});

describe('the outbox', () => {
  it('holds an event until a sender has made its messages, and a fan-out done twice makes them once', async () => {
    const at = await receiver();
    const endpoint = await createEndpoint(at.url, ['run.completed']);
    const run = await sentRun(700);
    await report(run.jobId, { status: 'delivered', attempt: 1 });
    const [work] = await webhookOutbox.due(Date.now() + 1_000, 100);
    if (work?.kind !== 'event') throw new Error('expected the run.completed event in the outbox');
    expect(await getItem(outboxEvent(work.event.eventId))).toBeDefined();
    const sender = {
      outbox: webhookOutbox,
      endpoints: webhookEndpointStore,
      transport: httpTransport({ allowLoopback: true }),
    };
    const { fanOutEvent } = await import('#lib/domain/webhooks/sender');
    // A fan-out that died before taking the event out is done again by the next sender: same messages.
    const first = await fanOutEvent(sender, work.event, Date.now());
    const again = await fanOutEvent(sender, work.event, Date.now());
    expect(again.map((message) => message.messageId)).toEqual(first.map((message) => message.messageId));
    expect(await getItem(outboxEvent(work.event.eventId))).toBeUndefined();
    await sendDue();
    expect(at.received).toHaveLength(1);
    await api.request('DELETE', `${webhooks}/${endpoint.id}`, { token: ADMIN_KEY });
  });
});
