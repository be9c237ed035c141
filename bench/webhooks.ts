import { readdir, readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { clockFrom } from '#lib/clock';
import { config } from '#lib/config';
import type { WebhookEventType } from '#lib/domain/webhooks/event-types';
import { messageBody, messageIdOf, type WebhookMessage } from '#lib/domain/webhooks/messages';
import { webhookSender } from '#lib/jobs/webhook-sender';
import { httpTransport } from '#lib/jobs/webhook-transport';
import { webhookEndpointStore } from '#lib/store/webhooks/endpoints';
import { messageItem } from '#lib/store/webhooks/message-items';
import { webhookOutbox } from '#lib/store/webhooks/messages';
import { eventRecorder } from '#lib/store/webhooks/subscriptions';
import { putItems } from '#test/support/stored-items';
import { describe, watch, writes } from './dynamodb.ts';
import { type BenchKeys, tokenOf, WEBHOOK_DEPLOYMENTS, webhookNotificationId } from './fixture.ts';
import { type Bench, ms, section } from './report.ts';
import { expectStatus, type Stack } from './stack.ts';

/**
 * What webhooks cost the requests that cause their events, and how the sender shares its time among
 * endpoints. Deployments of their own (fixture.ts): one without endpoints, one whose endpoint wants every
 * type (its subscriptions cached), and one per event type whose endpoint's subscriptions no container has
 * read yet (the cold case). Then a slow endpoint's backlog beside a fast endpoint's few messages.
 */

const { none, warm, cold } = WEBHOOK_DEPLOYMENTS;
/** The notifications of each of those deployments (fixture.ts): what each event type's request acts on. */
const notificationOf = (deploymentId: number, type: WebhookEventType) =>
  webhookNotificationId(
    deploymentId,
    EVENT_CASES.findIndex((c) => c.type === type),
  );
const base = (deploymentId: number) => `/v1/deployments/${deploymentId}`;

interface EventCase {
  type: WebhookEventType;
  what: string;
  /** A request of the same function that changes nothing: its first load and caller's lookup are not measured. */
  warmUp?: (stack: Stack) => Promise<unknown>;
  /** Untimed setup; returns the request measured. */
  prepare(stack: Stack, keys: BenchKeys, deploymentId: number): Promise<() => Promise<unknown>>;
}

/** A send-now of the notification and the delivery job it leaves (in the local outbox directory). */
async function sentJob(
  stack: Stack,
  deploymentId: number,
  notificationId: number,
): Promise<{ jobId: string; unsubscribeUrl: string }> {
  const sent = await stack.call('POST', `${base(deploymentId)}/notifications/${notificationId}/send`, 202);
  const { runId } = sent.body as { runId: string };
  const dir = config().outboxDir;
  for (const file of await readdir(dir)) {
    const job = JSON.parse(await readFile(join(dir, file), 'utf8'));
    if (job.runId === runId) return job;
  }
  throw new Error(`no delivery job of run ${runId}`);
}

const report = (stack: Stack, keys: BenchKeys, jobId: string, body: object) => async () =>
  expectStatus(
    await stack.request('POST', `/v1/deliveries/${encodeURIComponent(jobId)}/outcome`, {
      authorization: `Bearer ${tokenOf(keys, 'platform')}`,
      body,
    }),
    204,
    'outcome report',
  );

let suppressed = 0;
const suppress = (stack: Stack, deploymentId: number) =>
  stack.call('POST', `${base(deploymentId)}/suppressions`, 201, {
    email: `webhooks-${deploymentId}-${++suppressed}@example.com`,
  });

const EVENT_CASES: EventCase[] = [
  {
    type: 'run.completed',
    what: "outcome report of a run's only delivery, delivered",
    prepare: async (stack, keys, d) => {
      const { jobId } = await sentJob(stack, d, notificationOf(d, 'run.completed'));
      return report(stack, keys, jobId, { status: 'delivered', attempt: 1 });
    },
  },
  {
    type: 'delivery.failed',
    what: 'outcome report, failed, of one of two deliveries',
    prepare: async (stack, keys, d) => {
      const { jobId } = await sentJob(stack, d, notificationOf(d, 'delivery.failed'));
      return report(stack, keys, jobId, { status: 'failed', attempt: 1, error: 'mailbox full' });
    },
  },
  {
    type: 'notification.deleted',
    what: 'delete of a notification',
    warmUp: (stack) => stack.call('DELETE', `${base(none)}/notifications/1`, 404),
    prepare: async (stack, _, d) => () =>
      stack.call('DELETE', `${base(d)}/notifications/${notificationOf(d, 'notification.deleted')}`, 204),
  },
  {
    type: 'recipient.unsubscribed',
    what: "one-click unsubscribe of a notification's console user",
    prepare: async (stack, _, d) => {
      // The link of a delivery as sent: it names the subscription it was sent for.
      const { unsubscribeUrl } = await sentJob(stack, d, notificationOf(d, 'recipient.unsubscribed'));
      const token = new URL(unsubscribeUrl).searchParams.get('token') ?? '';
      return async () => {
        const reply = await stack.request('POST', `/v1/unsubscribe?token=${encodeURIComponent(token)}`, {});
        if (reply.status >= 300) throw new Error(`unsubscribe answered ${reply.status}: ${reply.text}`);
      };
    },
  },
  {
    type: 'notification.paused',
    what: 'pause of a notification',
    warmUp: (stack) => stack.call('POST', `${base(none)}/notifications/1/pause`, 404, { reason: 'bench' }),
    prepare: async (stack, _, d) => () =>
      stack.call('POST', `${base(d)}/notifications/${notificationOf(d, 'notification.paused')}/pause`, 200, {
        reason: 'bench',
      }),
  },
  {
    type: 'suppression.added',
    what: "an admin's suppression of an address",
    prepare: async (stack, _, d) => () => suppress(stack, d),
  },
];

/** Items a request writes that are outbox events. */
const eventWrites = (calls: Parameters<typeof writes>[0]) =>
  writes(calls).filter((w) => w.item?.kind?.S === 'webhookEvent').length;

async function recording(bench: Bench, stack: Stack, keys: BenchKeys) {
  // Never sent to: its deployments' events are fanned out after it is deleted, to nobody.
  const everyType = { url: 'http://127.0.0.1:9/never', events: ['*'] };
  const endpointOf = async (deploymentId: number) =>
    (await stack.call('POST', `${base(deploymentId)}/webhooks`, 201, everyType)).body.id as string;
  const endpoints = [await endpointOf(warm), ...(await Promise.all(cold.map(endpointOf)))];
  try {
    await measureEvents(bench, stack, keys);
  } finally {
    for (const [k, id] of endpoints.entries())
      await stack.call('DELETE', `${base(k === 0 ? warm : (cold[k - 1] ?? 0))}/webhooks/${id}`, 204);
  }
}

async function measureEvents(bench: Bench, stack: Stack, keys: BenchKeys) {
  for (const [k, c] of EVENT_CASES.entries()) {
    const measured = [];
    await c.warmUp?.(stack);
    for (const [condition, deploymentId] of [
      ['no endpoint', none],
      ['endpoint, warm', warm],
      ['endpoint, cold', cold[k] ?? Number.NaN],
    ] as const) {
      const request = await c.prepare(stack, keys, deploymentId);
      // Warm: an untimed request of the same deployment has just read its subscriptions.
      if (condition !== 'endpoint, cold') await suppress(stack, deploymentId);
      const { calls, work } = await watch(request);
      const events = eventWrites(calls);
      const { show } = bench.figures.about(`${c.type} (${c.what}), ${condition}`);
      show('DynamoDB requests', work.requests);
      show('by operation', describe(work.byOperation));
      show('items written', writes(calls).length);
      show('write units', work.writeUnits);
      show('events recorded', events);
      measured.push({ work, events, items: writes(calls).length });
    }
    const [empty, cached, uncached] = measured as [
      (typeof measured)[0],
      (typeof measured)[0],
      (typeof measured)[0],
    ];
    const { gate } = bench.figures.about(c.type);
    gate('events recorded with no endpoint', empty.events, 0, 'items');
    // Exactly one: ≤ 0 either way.
    gate('events not recorded, one per change', Math.abs(cached.events - 1), 0, 'items');
    gate('items written more, warm', cached.items - empty.items, 1, 'items');
    gate('requests more, warm', cached.work.requests - empty.work.requests, 0, 'requests');
    gate('requests more, cold than warm', uncached.work.requests - cached.work.requests, 1, 'requests');
  }
}

/** A customer's endpoint answering 204 after `delayMs`; it counts what it received and answered. */
async function receiver(delayMs: number) {
  const state = { received: 0, answered: 0 };
  const server: Server = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      state.received++;
      setTimeout(() => {
        state.answered++;
        response.writeHead(204).end();
      }, delayMs);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
  const close = () => {
    server.closeAllConnections();
    return new Promise((resolve) => server.close(resolve));
  };
  return { state, url, close };
}

const SLOW_ANSWER_MS = 2_000;
const FAST_MESSAGES = 20;
/** As the local loop (lib/local/webhook-loop.ts): a pass every quarter second. */
const PASS_INTERVAL_MS = 250;

/** `count` pending messages to the endpoint, their events at the given instants, all due at `dueAt`. */
function pendingMessages(deploymentId: number, webhookId: string, instants: number[], dueAt: number) {
  return instants.map((at): WebhookMessage => {
    const event = {
      eventId: eventRecorder.newEventId(at),
      deploymentId,
      type: 'suppression.added' as const,
      createdAt: new Date(at).toISOString(),
      data: { deploymentId, email: `backlog-${at}@example.com` },
    };
    return {
      messageId: messageIdOf(event.eventId, webhookId),
      deploymentId,
      webhookId,
      type: event.type,
      body: messageBody(event),
      createdAt: event.createdAt,
      status: 'pending',
      attempts: 0,
      lastStatusCode: null,
      lastError: null,
      nextAttemptAt: new Date(dueAt).toISOString(),
    };
  });
}

async function sending(bench: Bench, stack: Stack) {
  const slowCount = bench.smoke ? 50 : 1_000;
  const [slow, fast] = [await receiver(SLOW_ANSWER_MS), await receiver(0)];
  const deploymentId = none;
  const endpointAt = async (url: string) =>
    (await stack.call('POST', `${base(deploymentId)}/webhooks`, 201, { url, events: ['suppression.added'] }))
      .body.id as string;
  const [slowId, fastId] = [await endpointAt(slow.url), await endpointAt(fast.url)];
  try {
    // The events of the last minutes, a fast endpoint's among the slow one's evenly: all due now.
    const now = Date.now();
    const total = slowCount + FAST_MESSAGES;
    const fastAt = new Set(
      Array.from({ length: FAST_MESSAGES }, (_, k) => Math.floor(((k + 0.5) * total) / FAST_MESSAGES)),
    );
    const instants = Array.from({ length: total }, (_, i) => now - 60_000 + i);
    const due = now - 1_000;
    const messages = [
      ...pendingMessages(
        deploymentId,
        slowId,
        instants.filter((_, i) => !fastAt.has(i)),
        due,
      ),
      ...pendingMessages(
        deploymentId,
        fastId,
        instants.filter((_, i) => fastAt.has(i)),
        due,
      ),
    ];
    await putItems(messages.map(messageItem));

    const sender = webhookSender(
      {
        outbox: webhookOutbox,
        endpoints: webhookEndpointStore,
        transport: httpTransport({ allowLoopback: true }),
      },
      clockFrom(Date.now()),
      () => {},
    );
    const deadlineMs = bench.smoke ? 30_000 : 60_000;
    const started = performance.now();
    let [passes, firstPass] = [0, undefined as undefined | { events: number; started: number }];
    let firstPassWork: Awaited<ReturnType<typeof watch>>['work'] | undefined;
    while (fast.state.answered < FAST_MESSAGES && performance.now() - started < deadlineMs) {
      if (passes === 0) {
        const watched = await watch(() => sender.pass());
        [firstPass, firstPassWork] = [watched.result, watched.work];
      } else await sender.pass();
      passes++;
      await new Promise((resolve) => setTimeout(resolve, PASS_INTERVAL_MS));
    }
    const lastFastMs = performance.now() - started;
    const slowAtThatMoment = slow.state.answered;
    await sender.idle();

    const { show, gate } = bench.figures.about(
      `${slowCount} messages to a slow endpoint, ${FAST_MESSAGES} to a fast one`,
    );
    show('fast delivered', fast.state.answered);
    gate('fast not delivered', FAST_MESSAGES - fast.state.answered, 0, 'messages');
    show('time to the last fast delivery', ms(lastFastMs));
    gate('slow delivered by then', slowAtThatMoment, 10, 'messages');
    show('passes by then', passes);
    show('slow delivered after the last lane ended', slow.state.answered);
    const pass = bench.figures.about('the first sender pass');
    pass.show('lanes started', firstPass?.started ?? 0);
    pass.show('DynamoDB requests until its lanes started', firstPassWork?.requests ?? 0);
    pass.show('by operation', describe(firstPassWork?.byOperation ?? {}));
  } finally {
    for (const id of [slowId, fastId])
      await stack.call('DELETE', `${base(deploymentId)}/webhooks/${id}`, 204);
    await Promise.all([slow.close(), fast.close()]);
  }
}

export async function webhooksSection(bench: Bench, stack: Stack, keys: BenchKeys) {
  await section(bench, 'Webhooks: what recording an event adds to the request that causes it', () =>
    recording(bench, stack, keys),
  );
  const slowCount = bench.smoke ? 50 : 1_000;
  const title = `Webhooks: the sender, ${slowCount} messages to an endpoint answering after 2 s and ${FAST_MESSAGES} to a fast one`;
  await section(bench, title, () => sending(bench, stack));
}
