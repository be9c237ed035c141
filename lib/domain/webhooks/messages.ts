import type { WebhookEventType } from '#lib/domain/webhooks/event-types';

/**
 * Event messages and their delivery. A change that causes an event records it (an outbox event) in
 * the same transaction as the change itself; the sender later turns the event into one message per
 * endpoint subscribed to its type, and tries each message until its endpoint answers 2xx or the
 * retry schedule runs out. Delivery is at least once: a message may arrive twice (the same
 * `webhook-id`), never not at all while its endpoint is enabled and answers within the schedule.
 */

/** The event as recorded beside the change that caused it. */
export interface WebhookEvent {
  /** `evt_` + a time-ordered id. */
  eventId: string;
  deploymentId: number;
  type: WebhookEventType;
  /** ISO instant of the change. */
  createdAt: string;
  data: unknown;
}

export const messageStatuses = ['pending', 'delivered', 'failed'] as const;
type MessageStatus = (typeof messageStatuses)[number];

/** One event on its way to one endpoint. */
export interface WebhookMessage {
  /** The `webhook-id` of every attempt: `msg_` + the event's id + the endpoint's. */
  messageId: string;
  deploymentId: number;
  webhookId: string;
  type: WebhookEventType;
  /** The exact JSON text signed and sent. */
  body: string;
  createdAt: string;
  status: MessageStatus;
  attempts: number;
  lastStatusCode: number | null;
  lastError: string | null;
  /** ISO instant of the next attempt while pending; null once delivered or failed. */
  nextAttemptAt: string | null;
}

export interface WebhookMessageDto {
  messageId: string;
  type: WebhookEventType;
  createdAt: string;
  status: MessageStatus;
  attempts: number;
  lastStatusCode: number | null;
  lastError: string | null;
  nextAttemptAt: string | null;
}

export const toMessageDto = (message: WebhookMessage): WebhookMessageDto => ({
  messageId: message.messageId,
  type: message.type,
  createdAt: message.createdAt,
  status: message.status,
  attempts: message.attempts,
  lastStatusCode: message.lastStatusCode,
  lastError: message.lastError,
  nextAttemptAt: message.nextAttemptAt,
});

/** A message's body as Standard Webhooks shapes it: `{type, timestamp, data}`. */
export const messageBody = (event: WebhookEvent) =>
  JSON.stringify({ type: event.type, timestamp: event.createdAt, data: event.data });

export const messageIdOf = (eventId: string, webhookId: string) =>
  `msg_${eventId.replace(/^evt_/, '')}_${webhookId.replace(/^wh_/, '')}`;

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
/** The waits before each attempt after the first; the attempt after the last failure is the message's end. */
const RETRY_DELAYS_MS = [5 * SECOND, 5 * MINUTE, 30 * MINUTE, 2 * HOUR, 5 * HOUR, 10 * HOUR, 10 * HOUR];
/** An endpoint whose attempts all failed for this long is disabled (its owner enables it again). */
const DISABLE_AFTER_FAILING_MS = 5 * 24 * HOUR;
/** Messages are kept this long, then expire (DynamoDB TTL). */
export const MESSAGE_RETENTION_MS = 30 * 24 * HOUR;
/** An answer later than this is a failure. */
export const ATTEMPT_TIMEOUT_MS = 15 * SECOND;
/** Characters of a failed answer's body kept in `lastError`. */
export const RESPONSE_EXCERPT_LENGTH = 200;

/** What one attempt found: the status of the endpoint's answer, or why there was none. */
export type AttemptResult = { statusCode: number; excerpt: string } | { statusCode: null; error: string };

const isDelivered = (result: AttemptResult) =>
  result.statusCode !== null && result.statusCode >= 200 && result.statusCode < 300;

/** The message after an attempt at `now`: delivered, pending until its next attempt, or failed for good. */
export function afterAttempt(message: WebhookMessage, result: AttemptResult, now: number): WebhookMessage {
  const attempts = message.attempts + 1;
  const lastStatusCode = result.statusCode;
  if (isDelivered(result)) {
    return {
      ...message,
      attempts,
      lastStatusCode,
      lastError: null,
      status: 'delivered',
      nextAttemptAt: null,
    };
  }
  const lastError =
    result.statusCode === null
      ? result.error
      : `HTTP ${result.statusCode}${result.excerpt ? `: ${result.excerpt}` : ''}`;
  const delay = RETRY_DELAYS_MS[attempts - 1];
  if (delay === undefined) {
    return { ...message, attempts, lastStatusCode, lastError, status: 'failed', nextAttemptAt: null };
  }
  return {
    ...message,
    attempts,
    lastStatusCode,
    lastError,
    status: 'pending',
    nextAttemptAt: new Date(now + delay).toISOString(),
  };
}

/** The endpoint's failure streak after an attempt, and whether it is now long enough to disable it. */
export function endpointHealth(
  failingSince: string | null,
  result: AttemptResult,
  now: number,
): { failingSince: string | null; disable: boolean } {
  if (isDelivered(result)) return { failingSince: null, disable: false };
  const since = failingSince ?? new Date(now).toISOString();
  return { failingSince: since, disable: now - Date.parse(since) >= DISABLE_AFTER_FAILING_MS };
}
