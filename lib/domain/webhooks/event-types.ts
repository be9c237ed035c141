/**
 * The events a deployment's webhook endpoints may subscribe to, declared once: the list gives the
 * request schema, the type and the documentation. `*` subscribes to every type, present and future.
 */
export const webhookEventTypes = [
  'run.completed',
  'run.completed_with_failures',
  'run.skipped',
  'delivery.failed',
  'notification.paused',
  'notification.resumed',
  'notification.suspended',
  'notification.deleted',
  'recipient.unsubscribed',
  'suppression.added',
] as const;
export type WebhookEventType = (typeof webhookEventTypes)[number];

export const EVERY_EVENT = '*';
export type EventSubscription = WebhookEventType | typeof EVERY_EVENT;

/** Whether an endpoint subscribed to `events` wants a message of `type`. */
export const subscribesTo = (events: readonly EventSubscription[], type: WebhookEventType) =>
  events.includes(EVERY_EVENT) || events.includes(type);
