import {
  endpointsFor,
  liveSecrets,
  type WebhookEndpoint,
  type WebhookEndpointReader,
  type WebhookEndpointStore,
} from '#lib/domain/webhooks/endpoints';
import {
  type AttemptResult,
  afterAttempt,
  endpointHealth,
  messageBody,
  messageIdOf,
  type WebhookEvent,
  type WebhookMessage,
} from '#lib/domain/webhooks/messages';
import { signedHeaders } from '#lib/domain/webhooks/signing';

/**
 * The sender's two steps. An outbox event becomes one message per enabled endpoint subscribed to its
 * type (each made at most once, so a fan-out cut short is simply done again); a due message is claimed
 * (its next attempt moved past the time an attempt takes, so that no other sender takes it meanwhile),
 * sent, and its outcome recorded.
 */

/** How long a claimed message is left to its sender before another may take it. */
const CLAIM_MS = 60_000;

/** What the sender has to do next: make an event's messages, or attempt a message. */
export type DueWork = { kind: 'event'; event: WebhookEvent } | { kind: 'message'; message: WebhookMessage };

export interface WebhookOutbox {
  /** Events and pending messages due at `now`, the longest waiting first, at most `limit`; with `after`, those after it. */
  due(now: number, limit: number, after?: DueWork): Promise<DueWork[]>;
  /** Writes the messages that do not exist yet and takes the event out of the outbox. */
  fanOut(event: WebhookEvent, messages: WebhookMessage[]): Promise<void>;
  /** Moves a due message's next attempt to `until`, on condition that it is as given; the claimed message or undefined. */
  claim(message: WebhookMessage, until: number): Promise<WebhookMessage | undefined>;
  /** Writes the message after an attempt, on condition that its attempts are still those of the claim. */
  recordAttempt(claimed: WebhookMessage, after: WebhookMessage): Promise<void>;
}

/** Sends one attempt: the status of the answer, or why there was none (refused address, timeout, reset). */
export type WebhookTransport = (
  url: string,
  headers: Record<string, string>,
  body: string,
) => Promise<AttemptResult>;

export interface SenderPorts {
  outbox: WebhookOutbox;
  endpoints: WebhookEndpointStore;
  transport: WebhookTransport;
}

/** What one attempt needs: a deployed sender does nothing else (the relay reads and fans out). */
export type AttemptPorts = Omit<SenderPorts, 'outbox'> & {
  outbox: Pick<WebhookOutbox, 'claim' | 'recordAttempt'>;
};

/** The event's messages, one per endpoint that wants it, written; returns them. */
export async function fanOutEvent(
  ports: { outbox: Pick<WebhookOutbox, 'fanOut'>; endpoints: WebhookEndpointReader },
  event: WebhookEvent,
  now: number,
): Promise<WebhookMessage[]> {
  const endpoints = endpointsFor(await ports.endpoints.all(event.deploymentId), event.type);
  const body = messageBody(event);
  const messages = endpoints.map(
    (endpoint): WebhookMessage => ({
      messageId: messageIdOf(event.eventId, endpoint.id),
      deploymentId: event.deploymentId,
      webhookId: endpoint.id,
      type: event.type,
      body,
      createdAt: event.createdAt,
      status: 'pending',
      attempts: 0,
      lastStatusCode: null,
      lastError: null,
      nextAttemptAt: new Date(now).toISOString(),
    }),
  );
  await ports.outbox.fanOut(event, messages);
  return messages;
}

/** Writes the endpoint's failure streak after an attempt; disables it after five days of failures only. */
async function recordHealth(
  ports: AttemptPorts,
  endpoint: WebhookEndpoint,
  result: AttemptResult,
  now: number,
): Promise<void> {
  const health = endpointHealth(endpoint.failingSince, result, now);
  if (health.failingSince === endpoint.failingSince && !health.disable) return;
  // Health is advice: losing a race with an owner's change leaves it for the next attempt.
  await ports.endpoints.replace({
    ...endpoint,
    failingSince: health.failingSince,
    ...(health.disable && { status: 'disabled' as const }),
    version: endpoint.version + 1,
  });
}

export type DeliveryOutcome = 'delivered' | 'retrying' | 'failed' | 'skipped';

/**
 * One attempt of a due message. A message whose endpoint is gone or disabled, or that another sender
 * claimed first, is left alone ('skipped'): a disabled endpoint's messages wait for it to be enabled
 * (or for their retention to end).
 */
export async function deliverMessage(
  ports: AttemptPorts,
  message: WebhookMessage,
  clock: { now(): number },
): Promise<DeliveryOutcome> {
  const endpoint = (await ports.endpoints.all(message.deploymentId)).find(
    (candidate) => candidate.id === message.webhookId,
  );
  if (endpoint?.status !== 'enabled') return 'skipped';
  const start = clock.now();
  const claimed = await ports.outbox.claim(message, start + CLAIM_MS);
  if (!claimed) return 'skipped';
  const secrets = liveSecrets(endpoint, start).map((secret) => secret.secret);
  const headers = signedHeaders(secrets, message.messageId, Math.floor(start / 1000), message.body);
  const result = await ports.transport(endpoint.url, headers, message.body);
  const end = clock.now();
  const after = afterAttempt(claimed, result, end);
  await ports.outbox.recordAttempt(claimed, after);
  await recordHealth(ports, endpoint, result, end);
  return after.status === 'delivered' ? 'delivered' : after.status === 'failed' ? 'failed' : 'retrying';
}
