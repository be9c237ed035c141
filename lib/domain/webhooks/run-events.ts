import { type Run, toRunDto } from '#lib/domain/runs/runs';
import type { WebhookEventType } from '#lib/domain/webhooks/event-types';
import type { WebhookEvent } from '#lib/domain/webhooks/messages';

/**
 * The events of a run's life: its completion (`run.completed`, or `run.completed_with_failures` when
 * some delivery failed) and its skip, each carrying the run as the API answers it (RunDto).
 */

const completionType = (run: Run): WebhookEventType | undefined =>
  run.status === 'completed'
    ? 'run.completed'
    : run.status === 'completed_with_failures'
      ? 'run.completed_with_failures'
      : run.status === 'skipped'
        ? 'run.skipped'
        : undefined;

/** The event `run`'s status calls for, when an endpoint wants its type. */
export function runEvent(
  run: Run,
  subscribed: ReadonlySet<WebhookEventType>,
  eventId: string,
  now: number,
): WebhookEvent | undefined {
  const type = completionType(run);
  if (!type || !subscribed.has(type)) return undefined;
  return {
    eventId,
    deploymentId: run.deploymentId,
    type,
    createdAt: new Date(now).toISOString(),
    data: toRunDto(run),
  };
}
