import { randomUUID } from 'node:crypto';
import { ConditionalCheckFailedException, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { PutCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { Notification } from '#lib/domain/notification';
import type {
  DashboardRef,
  IdempotencyClaim,
  NotificationCreation,
  NotificationLookup,
} from '#lib/domain/notification-lifecycle';
import type { ScheduleState } from '#lib/domain/schedule';
import { ConflictError, IdempotencyKeyMismatchError } from '#lib/errors';
import { documentClient, tableName } from '#lib/store/client';
import { decodeDashboard, decodeDashboardLink } from '#lib/store/codecs/dashboards';
import {
  decodeIdempotencyRecord,
  encodeIdempotencyClaim,
  encodeIdempotencyResult,
  idempotencyAttributes,
} from '#lib/store/codecs/idempotency';
import { encodeNotification, encodeScheduleEntry } from '#lib/store/codecs/notifications';
import { getItem } from '#lib/store/items';
import { keys } from '#lib/store/keys';
import { nextNotificationId } from '#lib/store/notification-ids';
import { findScheduledNotification } from '#lib/store/scheduled-notifications';

/** An Idempotency-Key is remembered this long (DynamoDB's TTL removes the record some time after). */
const IDEMPOTENCY_TTL_SECONDS = 24 * 60 * 60;
/**
 * How long a claimed key counts as in flight. Longer than any create can run (its function times
 * out after 10 s), so a live request is never taken over; a crashed one is after this.
 */
const IDEMPOTENCY_LEASE_MS = 60_000;
/** A created id found taken (only a foreign write could do that) is skipped this many times. */
const MAX_ID_ATTEMPTS = 3;

const conditionFailed = (error: unknown) => error instanceof ConditionalCheckFailedException;

interface Claimed {
  owner: string;
  /** Set when the key's first request completed: its notification, answered again. */
  done?: Notification;
}

/**
 * Takes the key for this request: a new record (or one past its 24 h), a matching record whose
 * request completed, or a matching record whose holder's lease ran out (taken over).
 */
async function claim(deploymentId: number, claimed: IdempotencyClaim): Promise<Claimed> {
  const key = keys.idempotencyRecord(deploymentId, claimed.caller, claimed.key);
  const owner = randomUUID();
  const now = Date.now();
  try {
    await documentClient().send(
      new PutCommand({
        TableName: tableName(),
        Item: encodeIdempotencyClaim(key, {
          fingerprint: claimed.fingerprint,
          owner,
          leaseUntil: now + IDEMPOTENCY_LEASE_MS,
          expiresAt: Math.floor(now / 1000) + IDEMPOTENCY_TTL_SECONDS,
        }),
        ConditionExpression: 'attribute_not_exists(pk) OR #expiresAt < :now',
        ExpressionAttributeNames: { '#expiresAt': idempotencyAttributes.expiresAt },
        ExpressionAttributeValues: { ':now': Math.floor(now / 1000) },
      }),
    );
    return { owner };
  } catch (error) {
    if (!conditionFailed(error)) throw error;
  }
  const item = await getItem(key);
  const record = item && decodeIdempotencyRecord(item);
  if (!record) throw new ConflictError('A request with this Idempotency-Key is in progress; retry it');
  if (record.fingerprint !== claimed.fingerprint) throw new IdempotencyKeyMismatchError();
  if (record.done) return { owner, done: record.done };
  if (record.leaseUntil !== undefined && record.leaseUntil > now) {
    throw new ConflictError('A request with this Idempotency-Key is in progress; retry it');
  }
  try {
    await documentClient().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: key,
        UpdateExpression: 'SET #owner = :owner, #leaseUntil = :lease',
        ConditionExpression: '#owner = :previous AND #state = :pending',
        ExpressionAttributeNames: {
          '#owner': idempotencyAttributes.owner,
          '#state': idempotencyAttributes.state,
          '#leaseUntil': idempotencyAttributes.leaseUntil,
        },
        ExpressionAttributeValues: {
          ':owner': owner,
          ':lease': now + IDEMPOTENCY_LEASE_MS,
          ':previous': record.owner,
          ':pending': 'pending',
        },
      }),
    );
    return { owner };
  } catch (error) {
    if (conditionFailed(error))
      throw new ConflictError('A request with this Idempotency-Key is in progress; retry it');
    throw error;
  }
}

/**
 * The notification and its schedule entry, only if its id is free, and with a key, in the same
 * transaction, the key's record marked done (only if this request still holds it): a crash before
 * leaves nothing, after, all of it. False when the id is taken.
 */
async function insert(
  notification: Notification,
  schedule: ScheduleState & { signature: string },
  deploymentId: number,
  claimed?: IdempotencyClaim,
  owner?: string,
): Promise<boolean> {
  const table = tableName();
  const puts = [
    {
      Put: {
        TableName: table,
        Item: encodeNotification(notification),
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    },
    {
      Put: {
        TableName: table,
        Item: encodeScheduleEntry(notification, { ...schedule, scheduleVersion: 0 }),
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    },
  ];
  try {
    await documentClient().send(
      new TransactWriteCommand({
        TransactItems: [
          ...puts,
          ...(claimed
            ? [
                {
                  Update: {
                    TableName: table,
                    Key: keys.idempotencyRecord(deploymentId, claimed.caller, claimed.key),
                    UpdateExpression: 'SET #state = :done, #notification = :notification REMOVE #leaseUntil',
                    ConditionExpression: '#owner = :owner AND #state = :pending',
                    ExpressionAttributeNames: {
                      '#state': idempotencyAttributes.state,
                      '#owner': idempotencyAttributes.owner,
                      '#notification': idempotencyAttributes.notification,
                      '#leaseUntil': idempotencyAttributes.leaseUntil,
                    },
                    ExpressionAttributeValues: {
                      ':done': 'done',
                      ':pending': 'pending',
                      ':owner': owner,
                      ':notification': encodeIdempotencyResult(notification),
                    },
                  },
                },
              ]
            : []),
        ],
      }),
    );
    return true;
  } catch (error) {
    const reasons = error instanceof TransactionCanceledException ? error.CancellationReasons : undefined;
    if (reasons?.[2]?.Code === 'ConditionalCheckFailed') {
      throw new ConflictError('A request with this Idempotency-Key is in progress; retry it');
    }
    if (reasons?.slice(0, 2).some((reason) => reason.Code === 'ConditionalCheckFailed')) return false;
    throw error;
  }
}

async function create(
  draft: Omit<Notification, 'id'>,
  schedule: ScheduleState & { signature: string },
  claimed?: IdempotencyClaim,
): Promise<Notification> {
  const held = claimed ? await claim(draft.deploymentId, claimed) : undefined;
  if (held?.done) return held.done;
  for (let attempt = 1; ; attempt++) {
    const notification: Notification = { ...draft, id: await nextNotificationId() };
    if (await insert(notification, schedule, draft.deploymentId, claimed, held?.owner)) return notification;
    // The id was taken by an item written past the counter: draw the next one.
    if (attempt >= MAX_ID_ATTEMPTS) throw new ConflictError('No free notification id was found; retry');
  }
}

async function dashboardIdOf(deploymentId: number, ref: DashboardRef): Promise<number | undefined> {
  if ('dashboardId' in ref) {
    const link = await getItem(keys.dashboardById(deploymentId, ref.dashboardId));
    return link ? decodeDashboardLink(link, deploymentId).id : undefined;
  }
  const item = await getItem(keys.dashboard(ref.dashboardPublicId));
  const dashboard = item && decodeDashboard(item);
  return dashboard?.deploymentId === deploymentId ? dashboard.id : undefined;
}

/*
 * The adapters of the use cases: each operation's function takes only its own, so that its bundle
 * holds no other operation's storage code (and its IAM grant can be exactly what it calls).
 */
export const notificationLookup: NotificationLookup = { find: findScheduledNotification };
export const notificationCreation: NotificationCreation = { dashboardIdOf, create };
