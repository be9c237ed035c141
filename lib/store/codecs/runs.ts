import * as z from 'zod/mini';
import { config } from '#lib/config';
import type { DueEntry, RunProgress } from '#lib/domain/dispatch';
import type { NotificationRef } from '#lib/domain/notification';
import { runExpiresAt, runInstant } from '#lib/domain/retention';
import {
  type Delivery,
  deliverySkipReasons,
  deliveryStatuses,
  type Run,
  type RunStatus,
  runSkipReasons,
  runStatuses,
  runTriggers,
} from '#lib/domain/runs';
import { checkItem } from '#lib/store/codecs/stored-item';
import type { Item } from '#lib/store/items';
import { DUE_INDEX, dueIndexKeys, keys } from '#lib/store/keys';
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
    completedAt: run.completedAt,
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
  trigger: z.enum(runTriggers),
  scheduledFor: z.string(),
  createdAt: z.string(),
  status: z.enum([STORED_DISPATCHING, ...runStatuses]),
  skipReason: z.nullable(z.enum(runSkipReasons)),
  // Outcome counts are added by the first report of each kind; a run written before outcomes has none.
  recipients: z.looseObject({
    queued: count,
    skipped: count,
    delivered: z.optional(count),
    failed: z.optional(count),
  }),
  completedAt: z.optional(z.nullable(z.string())),
});

export function decodeRun(item: Item): Run {
  return runOf(checkItem('run', runItem, item));
}

function runOf(stored: z.output<typeof runItem>): Run {
  return {
    runId: stored.runId,
    deploymentId: stored.deploymentId,
    notificationId: stored.notificationId,
    trigger: stored.trigger,
    scheduledFor: stored.scheduledFor,
    createdAt: stored.createdAt,
    status: stored.status === STORED_DISPATCHING ? 'dispatching' : stored.status,
    skipReason: stored.skipReason,
    recipients: {
      queued: stored.recipients.queued,
      skipped: stored.recipients.skipped,
      delivered: stored.recipients.delivered ?? 0,
      failed: stored.recipients.failed ?? 0,
    },
    completedAt: stored.completedAt ?? null,
  };
}

const progressItem = z.extend(runItem, { cursor: z.optional(z.string()) });

/** A run a dispatcher has taken over, with the cursor of the page its last holder finished. */
export function decodeRunProgress(item: Item): RunProgress {
  const stored = checkItem('run', progressItem, item);
  return { run: runOf(stored), cursor: stored.cursor };
}

const dueNotificationItem = z.looseObject({
  entity: z.enum(['SCHEDULE', 'NOTIFICATION']),
  deploymentId: z.int(),
  id: z.int(),
  [DUE_INDEX.sortKey]: z.string(),
});
const dueRunItem = z.looseObject({ deploymentId: z.int(), notificationId: z.int(), runId: z.string() });

/**
 * An entry of the due index read from `shard`: a schedule entry whose instant has come, a notification
 * item's schedule-change mark, or a run whose lease has ended; undefined for an item of another kind.
 */
export function decodeDueEntry(item: Item, shard: number): DueEntry | undefined {
  if (item.entity === 'RUN') {
    const run = checkItem('run', dueRunItem, item);
    return {
      shard,
      kind: 'run',
      deploymentId: run.deploymentId,
      notificationId: run.notificationId,
      runId: run.runId,
    };
  }
  if (item.entity !== 'SCHEDULE' && item.entity !== 'NOTIFICATION') return undefined;
  const entry = checkItem('due entry', dueNotificationItem, item);
  const dueKey = entry[DUE_INDEX.sortKey];
  return {
    shard,
    kind: entry.entity === 'SCHEDULE' ? 'notification' : 'change',
    deploymentId: entry.deploymentId,
    notificationId: entry.id,
    dueKey,
    dueAt: dueIndexKeys.instantOf(dueKey),
  };
}

export function encodeDelivery(
  run: Pick<Run, 'deploymentId' | 'notificationId' | 'runId'>,
  delivery: Delivery,
): Item {
  return {
    ...keys.delivery(run.deploymentId, run.notificationId, run.runId, delivery.deliveryId),
    entity: 'DELIVERY',
    recipientKey: delivery.recipientKey,
    recipient: delivery.recipient,
    status: delivery.status,
    reason: delivery.reason,
    jobId: delivery.jobId,
    attempts: delivery.attempts,
    error: delivery.error,
    updatedAt: delivery.updatedAt,
    ...retentionOf(run.runId),
  };
}

const deliveryItem = z.looseObject({
  sk: z.string(),
  recipientKey: z.string(),
  // The recipient as the run's output showed it, copied from the checked row and user.
  recipient: z.discriminatedUnion('type', [
    z.looseObject({ type: z.literal('USER'), userId: z.int(), email: z.string(), username: z.string() }),
    z.looseObject({
      type: z.literal('EMBED_USER'),
      embedTenantName: z.string(),
      externalId: z.string(),
      embedUserId: z.int(),
      email: z.string(),
    }),
  ]),
  status: z.enum(deliveryStatuses),
  reason: z.optional(z.nullable(z.enum(deliverySkipReasons))),
  jobId: z.optional(z.nullable(z.string())),
  // A delivery written before outcomes existed has none of these: queued once, never changed since.
  attempts: z.optional(count),
  error: z.optional(z.nullable(z.string())),
  updatedAt: z.optional(z.string()),
});

export function decodeDelivery(item: Item): Delivery {
  const stored = checkItem('delivery', deliveryItem, item);
  return {
    recipientKey: stored.recipientKey,
    deliveryId: stored.sk.slice(stored.sk.lastIndexOf('#') + 1),
    recipient: stored.recipient,
    status: stored.status,
    reason: stored.reason ?? null,
    jobId: stored.jobId ?? null,
    attempts: stored.attempts ?? (stored.status === 'skipped' ? 0 : 1),
    error: stored.error ?? null,
    updatedAt: stored.updatedAt ?? '',
  };
}

/** A notification's latest send-now: when it was made, and its run. */
export interface SendNowMarker {
  at: number;
  runId: string;
}

export const encodeSendNowMarker = (ref: NotificationRef, marker: SendNowMarker): Item => ({
  ...keys.sendNowMarker(ref.deploymentId, ref.id),
  entity: 'SEND_NOW',
  lastAt: marker.at,
  runId: marker.runId,
});

const sendNowMarkerItem = z.looseObject({ lastAt: z.number(), runId: z.string() });

export function decodeSendNowMarker(item: Item): SendNowMarker {
  const stored = checkItem('send-now marker', sendNowMarkerItem, item);
  return { at: stored.lastAt, runId: stored.runId };
}
