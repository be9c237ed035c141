import * as z from 'zod/mini';
import type { Notification } from '#lib/domain/notification';
import { decodeNotification } from '#lib/store/codecs/notifications';
import {
  checkItem,
  itemKey,
  MalformedItemError,
  parseJsonAttribute,
  schemaOf,
} from '#lib/store/codecs/stored-item';
import type { Item } from '#lib/store/items';
import type { Key } from '#lib/store/keys';

/**
 * A create's Idempotency-Key record: claimed (`pending`, held by `owner` until `leaseUntil`), then
 * `done` with the created notification as JSON text (as the notification item keeps its filters:
 * values come back exactly). `expiresAt` is the table's TTL attribute, in epoch seconds.
 */

/** Claimed by a request still creating, or done with what it created. */
const idempotencyStates = ['pending', 'done'] as const;

export interface IdempotencyRecord {
  state: (typeof idempotencyStates)[number];
  fingerprint: string;
  owner: string;
  /** Epoch ms; gone once the record is done. */
  leaseUntil?: number;
  /** The notification the key's request created: set exactly when `state` is `done`. */
  done?: Notification;
}

/** The attributes the writes of a record name in their expressions. */
export const idempotencyAttributes = {
  state: 'state',
  owner: 'owner',
  leaseUntil: 'leaseUntil',
  expiresAt: 'expiresAt',
  notification: 'notificationJson',
} as const;

export function encodeIdempotencyClaim(
  key: Key,
  claim: { fingerprint: string; owner: string; leaseUntil: number; expiresAt: number },
): Item {
  return {
    ...key,
    entity: 'IDEMPOTENCY',
    state: 'pending',
    fingerprint: claim.fingerprint,
    owner: claim.owner,
    leaseUntil: claim.leaseUntil,
    expiresAt: claim.expiresAt,
  };
}

/** The `notificationJson` value of a done record. */
export const encodeIdempotencyResult = (notification: Notification) => JSON.stringify(notification);

const idempotencyItem = () =>
  z.looseObject({
    state: z.enum(idempotencyStates),
    fingerprint: z.string(),
    owner: z.string(),
    leaseUntil: z.optional(z.number()),
    notificationJson: z.optional(z.string()),
  });

const notificationText = () => z.looseObject({});

/**
 * The notification a done record holds, written by encodeIdempotencyResult: its fields by name, its
 * lists as lists, which is how an item written before the lists' JSON text attributes held them, so
 * the notification's own codec reads it.
 */
function doneNotification(item: Item): Notification {
  const attribute = idempotencyAttributes.notification;
  const fields = schemaOf(notificationText).safeParse(
    parseJsonAttribute('idempotency record', item, attribute),
  );
  if (!fields.success)
    throw new MalformedItemError('idempotency record', itemKey(item), attribute, 'is not an object');
  return decodeNotification(fields.data);
}

export function decodeIdempotencyRecord(item: Item): IdempotencyRecord {
  const stored = checkItem('idempotency record', idempotencyItem, item);
  if (stored.state === 'done' && stored.notificationJson === undefined)
    throw new MalformedItemError(
      'idempotency record',
      itemKey(item),
      idempotencyAttributes.notification,
      'is missing',
    );
  return {
    state: stored.state,
    fingerprint: stored.fingerprint,
    owner: stored.owner,
    ...(stored.leaseUntil === undefined ? {} : { leaseUntil: stored.leaseUntil }),
    ...(stored.state === 'done' ? { done: doneNotification(item) } : {}),
  };
}
