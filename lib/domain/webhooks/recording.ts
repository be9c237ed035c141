import type { WebhookEventType } from '#lib/domain/webhooks/event-types';
import type { WebhookEvent } from '#lib/domain/webhooks/messages';

/**
 * Whether a change records an event, decided before its transaction: only when some enabled endpoint
 * of the deployment subscribes to the type, so a deployment without webhooks pays nothing. The
 * subscribed types come from a short per-container cache (lib/store/webhooks/subscriptions.ts): an
 * endpoint created or changed is heard by every container within that cache's lifetime.
 */
export interface EventRecorder {
  /** The types some enabled endpoint of the deployment subscribes to. */
  subscribedTypes(deploymentId: number): Promise<ReadonlySet<WebhookEventType>>;
  /** A new, time-ordered event id at `now`. */
  newEventId(now: number): string;
}

/** The event to record with a change, or undefined when no endpoint wants its type. */
export async function eventToRecord(
  recorder: EventRecorder,
  deploymentId: number,
  type: WebhookEventType,
  data: unknown,
  now: number,
): Promise<WebhookEvent | undefined> {
  return wantedEvent(await recorder.subscribedTypes(deploymentId), recorder, deploymentId, type, data, now);
}

/** As eventToRecord, when the deployment's subscribed types are already known (read with something else). */
export function wantedEvent(
  subscribed: ReadonlySet<WebhookEventType>,
  recorder: Pick<EventRecorder, 'newEventId'>,
  deploymentId: number,
  type: WebhookEventType,
  data: unknown,
  now: number,
): WebhookEvent | undefined {
  if (!subscribed.has(type)) return undefined;
  return {
    eventId: recorder.newEventId(now),
    deploymentId,
    type,
    createdAt: new Date(now).toISOString(),
    data,
  };
}
