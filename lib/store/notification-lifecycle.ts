import { randomUUID } from 'node:crypto';
import { PutCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { Notification } from '#lib/domain/notification';
import type {
  IdempotencyClaim,
  NotificationCreation,
  NotificationLookup,
} from '#lib/domain/notification-lifecycle';
import type { ScheduleState } from '#lib/domain/schedule';
import { ConflictError, IdempotencyKeyMismatchError } from '#lib/errors';
import { documentClient, tableName } from '#lib/store/client';
import {
  decodeIdempotencyRecord,
  encodeIdempotencyClaim,
  encodeIdempotencyResult,
  idempotencyAttributes,
} from '#lib/store/codecs/idempotency';
import { encodeNotification, encodeScheduleEntry } from '#lib/store/codecs/notifications';
import { conditionHeld, transact } from '#lib/store/conditional';
import * as keys from '#lib/store/item-keys';
import { getItem } from '#lib/store/items';
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

const keyInUse = () => new ConflictError('A request with this Idempotency-Key is in progress; retry it');

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
  const fresh = await conditionHeld(() =>
    documentClient().send(
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
    ),
  );
  if (fresh) return { owner };
  const item = await getItem(key);
  const record = item && decodeIdempotencyRecord(item);
  if (!record) throw keyInUse();
  if (record.fingerprint !== claimed.fingerprint) throw new IdempotencyKeyMismatchError();
  if (record.done) return { owner, done: record.done };
  if (record.leaseUntil !== undefined && record.leaseUntil > now) {
    throw keyInUse();
  }
  const takenOver = await conditionHeld(() =>
    documentClient().send(
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
    ),
  );
  if (!takenOver) throw keyInUse();
  return { owner };
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
  const send = () =>
    documentClient().send(
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
  return transact(send, {
    written: true,
    cancelled: ({ failedAt }) => {
      if (failedAt(2)) throw keyInUse();
      return failedAt(0) || failedAt(1) ? false : undefined;
    },
  });
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

import { dashboardIdOf } from '#lib/store/dashboards';

/*
 * The adapters of the use cases: each operation's function takes only its own, so that its bundle
 * holds no other operation's storage code (and its IAM grant can be exactly what it calls).
 */
export const notificationLookup: NotificationLookup = { find: findScheduledNotification };
export const notificationCreation: NotificationCreation = { dashboardIdOf, create };
