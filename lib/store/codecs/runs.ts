import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import * as z from 'zod/mini';
import { config } from '#lib/config';
import { type UserKind, userKinds } from '#lib/domain/recipients/recipient-kinds';
import { runExpiresAt, runInstant } from '#lib/domain/runs/retention';
import {
  type Delivery,
  deliverySkipReasons,
  deliveryStatuses,
  type Run,
  type RunStatus,
  runSkipReasons,
  runStatuses,
  runTriggers,
} from '#lib/domain/runs/runs';
import { checkItem } from '#lib/store/codecs/stored-item';
import * as keys from '#lib/store/dynamo/item-keys';
import type { Item } from '#lib/store/dynamo/items';
import { dueIndexKeys, type Key, TIME_TO_LIVE_ATTRIBUTE } from '#lib/store/dynamo/keys';

/**
 * Runs and deliveries in their notification's partition. A run in progress also holds its lease
 * (`leaseOwner`, `leaseUntil`), its `cursor` and its due-index entry; those are the dispatcher's,
 * written and removed by its conditional updates, and not part of the run as read.
 *
 * A run and its deliveries carry the table's TTL attribute: the run's instant plus RUN_RETENTION_DAYS
 * (lib/domain/runs/retention.ts), so DynamoDB removes a run's history all at once.
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
 * conditional writes (lib/store/dispatch/dispatch.ts) test for it, and runs written by earlier versions carry it.
 */
export const STORED_DISPATCHING = 'pending' as const;
const storedStatus = (status: RunStatus) => (status === 'dispatching' ? STORED_DISPATCHING : status);

/** The attributes of a run that the store's updates name. */
export const runAttributes = {
  status: 'status',
  completedAt: 'completedAt',
  leaseOwner: 'leaseOwner',
  leaseUntil: 'leaseUntil',
  cursor: 'cursor',
} as const;

/** The path of one of a run's counts in its `recipients` map. */
export const recipientCountPath = (outcome: keyof Run['recipients']) => `recipients.${outcome}`;

/** The attributes of a delivery that the store's updates name. */
export const deliveryAttributes = {
  status: 'status',
  attempts: 'attempts',
  error: 'error',
  updatedAt: 'updatedAt',
} as const;

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

const count = () => z.int().check(z.nonnegative());
const runItem = () =>
  z.looseObject({
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
      queued: count(),
      skipped: count(),
      delivered: z.optional(count()),
      failed: z.optional(count()),
    }),
    completedAt: z.optional(z.nullable(z.string())),
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
    recipients: {
      queued: stored.recipients.queued,
      skipped: stored.recipients.skipped,
      delivered: stored.recipients.delivered ?? 0,
      failed: stored.recipients.failed ?? 0,
    },
    completedAt: stored.completedAt ?? null,
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
    ...(delivery.subscriptionNonce !== undefined && { subscriptionNonce: delivery.subscriptionNonce }),
    ...retentionOf(run.runId),
  };
}

const deliveryItem = () =>
  z.looseObject({
    sk: z.string(),
    recipientKey: z.string(),
    // The recipient as the run's output showed it, copied from the checked row and user.
    recipient: z.looseObject({ type: z.enum(userKinds) }),
    status: z.enum(deliveryStatuses),
    reason: z.optional(z.nullable(z.enum(deliverySkipReasons))),
    jobId: z.optional(z.nullable(z.string())),
    // A delivery written before outcomes existed has none of these: queued once, never changed since.
    attempts: z.optional(count()),
    error: z.optional(z.nullable(z.string())),
    updatedAt: z.optional(z.string()),
    // Deliveries made before unsubscribe links named a subscription have no nonce.
    subscriptionNonce: z.optional(z.string()),
  });

/** The recipient of each kind, checked once its kind is known (one schema each: no union to bundle). */
const deliveryOf = {
  USER: () =>
    z.looseObject({
      recipient: z.looseObject({
        type: z.literal('USER'),
        userId: z.int(),
        email: z.string(),
        username: z.string(),
      }),
    }),
  EMBED_USER: () =>
    z.looseObject({
      recipient: z.looseObject({
        type: z.literal('EMBED_USER'),
        embedTenantName: z.string(),
        externalId: z.string(),
        embedUserId: z.int(),
        email: z.string(),
      }),
    }),
} satisfies Record<UserKind, unknown>;

/** A delivery written before outcomes has no attempts: queued once, or never (skipped). */
const attemptsOf = (stored: { status: Delivery['status']; attempts?: number | undefined }) =>
  stored.attempts ?? (stored.status === 'skipped' ? 0 : 1);

const deliveryStateItem = () =>
  z.looseObject({ status: z.enum(deliveryStatuses), attempts: z.optional(count()) });

/**
 * A delivery's status and attempts, to decide an outcome report, from the item a refused transaction
 * returns: in DynamoDB's attribute-value form (the document client converts answers, not errors).
 */
export function decodeDeliveryState(
  item: Record<string, AttributeValue>,
  key: Key,
): Pick<Delivery, 'status' | 'attempts'> {
  const attempts = item.attempts?.N;
  const plain = { status: item.status?.S, attempts: attempts === undefined ? undefined : Number(attempts) };
  const stored = checkItem('delivery', deliveryStateItem, plain, key);
  return { status: stored.status, attempts: attemptsOf(stored) };
}

export function decodeDelivery(item: Item): Delivery {
  const stored = checkItem('delivery', deliveryItem, item);
  const { recipient } = checkItem('delivery', deliveryOf[stored.recipient.type], item);
  return {
    recipientKey: stored.recipientKey,
    deliveryId: stored.sk.slice(stored.sk.lastIndexOf('#') + 1),
    recipient,
    status: stored.status,
    reason: stored.reason ?? null,
    jobId: stored.jobId ?? null,
    attempts: attemptsOf(stored),
    error: stored.error ?? null,
    updatedAt: stored.updatedAt ?? '',
    ...(stored.subscriptionNonce !== undefined && { subscriptionNonce: stored.subscriptionNonce }),
  };
}
