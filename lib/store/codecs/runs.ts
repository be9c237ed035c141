import * as z from 'zod/mini';
import { config } from '#lib/config';
import type { RecipientOutput } from '#lib/domain/recipients';
import { runExpiresAt, runInstant } from '#lib/domain/retention';
import { type Delivery, type Run, type RunStatus, runStatuses } from '#lib/domain/runs';
import { checkItem } from '#lib/store/codecs/stored-item';
import type { Item } from '#lib/store/items';
import { dueIndexKeys, keys } from '#lib/store/keys';
import { TIME_TO_LIVE_ATTRIBUTE } from '#lib/store/table-definition';

/**
 * Runs and deliveries in their notification's partition. A run in progress also holds its lease
 * (`leaseOwner`, `leaseUntil`), its `cursor` and its due-index entry; those are the dispatcher's,
 * written and removed by its conditional updates, and not part of the run as read.
 *
 * A run and its deliveries carry the table's TTL attribute: the run's instant plus RUN_RETENTION_DAYS
 * (lib/domain/retention.ts), so DynamoDB removes a run's history all at once.
 */

/** The TTL attribute of a run and of each of its deliveries. */
export function retentionOf(runId: string): Item {
  const instant = runInstant(runId);
  return instant === undefined
    ? {}
    : { [TIME_TO_LIVE_ATTRIBUTE]: runExpiresAt(instant, config().runRetentionDays) };
}
/**
 * A run in progress is stored as `pending`, the word it had before the API showed it: the dispatcher's
 * conditional writes (lib/store/runs.ts) test for it, and runs written by earlier versions carry it.
 */
export const STORED_DISPATCHING = 'pending' as const;
const storedStatus = (status: RunStatus) => (status === 'dispatching' ? STORED_DISPATCHING : status);

export function encodeRun(run: Run, lease?: { owner: string; until: number }): Item {
  return {
    ...keys.run(run.deploymentId, run.notificationId, run.runId),
    entity: 'RUN',
    runId: run.runId,
    deploymentId: run.deploymentId,
    notificationId: run.notificationId,
    trigger: run.trigger,
    scheduledFor: run.scheduledFor,
    createdAt: run.createdAt,
    status: storedStatus(run.status),
    skipReason: run.skipReason,
    recipients: run.recipients,
    ...retentionOf(run.runId),
    ...(lease && {
      leaseOwner: lease.owner,
      leaseUntil: lease.until,
      ...dueIndexKeys.run(run.deploymentId, run.notificationId, run.runId, lease.until),
    }),
  };
}

const count = z.int().check(z.nonnegative());
const runItem = z.looseObject({
  runId: z.string(),
  deploymentId: z.int(),
  notificationId: z.int(),
  trigger: z.enum(['schedule', 'manual']),
  scheduledFor: z.string(),
  createdAt: z.string(),
  status: z.enum([STORED_DISPATCHING, ...runStatuses]),
  skipReason: z.nullable(z.enum(['delivery_disabled', 'dashboard_unavailable'])),
  recipients: z.looseObject({ queued: count, skipped: count }),
});

export function decodeRun(item: Item): Run {
  const stored = checkItem('run', runItem, item);
  return {
    runId: stored.runId,
    deploymentId: stored.deploymentId,
    notificationId: stored.notificationId,
    trigger: stored.trigger,
    scheduledFor: stored.scheduledFor,
    createdAt: stored.createdAt,
    status: stored.status === STORED_DISPATCHING ? 'dispatching' : stored.status,
    skipReason: stored.skipReason,
    recipients: { queued: stored.recipients.queued, skipped: stored.recipients.skipped },
  };
}

export function encodeDelivery(
  run: Pick<Run, 'deploymentId' | 'notificationId' | 'runId'>,
  delivery: Delivery,
): Item {
  return {
    ...keys.delivery(run.deploymentId, run.notificationId, run.runId, delivery.recipientKey),
    entity: 'DELIVERY',
    recipientKey: delivery.recipientKey,
    recipient: delivery.recipient,
    status: delivery.status,
    reason: delivery.reason,
    jobId: delivery.jobId,
    ...retentionOf(run.runId),
  };
}

const deliveryItem = z.looseObject({
  recipientKey: z.string(),
  // The recipient as the run's output showed it, copied from the checked row and user.
  recipient: z.looseObject({ type: z.enum(['USER', 'EMBED_USER']) }),
  status: z.enum(['queued', 'skipped']),
  reason: z.optional(z.nullable(z.enum(['user_deactivated', 'not_shared_with_tenant']))),
  jobId: z.optional(z.nullable(z.string())),
});

export function decodeDelivery(item: Item): Delivery {
  const stored = checkItem('delivery', deliveryItem, item);
  return {
    recipientKey: stored.recipientKey,
    recipient: stored.recipient as RecipientOutput,
    status: stored.status,
    reason: stored.reason ?? null,
    jobId: stored.jobId ?? null,
  };
}
