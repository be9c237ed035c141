import * as z from 'zod/mini';
import type { IdempotentResult } from '#lib/domain/idempotency';
import type { Notification } from '#lib/domain/notifications/notification';
import { decodeNotification } from '#lib/store/codecs/notifications';
import {
  checkItem,
  itemKey,
  MalformedItemError,
  parseJsonAttribute,
  schemaOf,
} from '#lib/store/codecs/stored-item';
import type { Item } from '#lib/store/dynamo/items';
import type { Key } from '#lib/store/dynamo/keys';

/**
 * An Idempotency-Key record: claimed (`pending`, held by `owner` until `leaseUntil`), then `done`
 * with what the key's request made: a created notification as JSON text (as the notification item
 * keeps its filters: values come back exactly), or a run by its notification and run id (a send-now,
 * test send or retry, answered again as the run stands). `expiresAt` is the table's TTL attribute,
 * in epoch seconds.
 */

/** Claimed by a request still working, or done with what it made. */
const idempotencyStates = ['pending', 'done'] as const;

export interface IdempotencyRecord {
  state: (typeof idempotencyStates)[number];
  fingerprint: string;
  owner: string;
  /** Epoch ms; gone once the record is done. */
  leaseUntil?: number;
  /** What the key's request made: set exactly when `state` is `done`. */
  done?: IdempotentResult;
}

/** The attributes the writes of a record name in their expressions. */
export const idempotencyAttributes = {
  state: 'state',
  owner: 'owner',
  leaseUntil: 'leaseUntil',
  expiresAt: 'expiresAt',
  notification: 'notificationJson',
  runDeploymentId: 'runDeploymentId',
  runNotificationId: 'runNotificationId',
  runId: 'runId',
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

/** The attributes a done record gains: what its request made. */
export function encodeIdempotencyResult(result: IdempotentResult): Record<string, string | number> {
  if (result.kind === 'notification')
    return { [idempotencyAttributes.notification]: JSON.stringify(result.notification) };
  return {
    [idempotencyAttributes.runDeploymentId]: result.run.deploymentId,
    [idempotencyAttributes.runNotificationId]: result.run.id,
    [idempotencyAttributes.runId]: result.run.runId,
  };
}

const idempotencyItem = () =>
  z.looseObject({
    state: z.enum(idempotencyStates),
    fingerprint: z.string(),
    owner: z.string(),
    leaseUntil: z.optional(z.number()),
    notificationJson: z.optional(z.string()),
    runDeploymentId: z.optional(z.number()),
    runNotificationId: z.optional(z.number()),
    runId: z.optional(z.string()),
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

function doneResult(item: Item, stored: z.infer<ReturnType<typeof idempotencyItem>>): IdempotentResult {
  if (stored.notificationJson !== undefined)
    return { kind: 'notification', notification: doneNotification(item) };
  const { runDeploymentId, runNotificationId, runId } = stored;
  if (runDeploymentId !== undefined && runNotificationId !== undefined && runId !== undefined)
    return { kind: 'run', run: { deploymentId: runDeploymentId, id: runNotificationId, runId } };
  // Neither what a create made nor a run: the record is broken.
  throw new MalformedItemError(
    'idempotency record',
    itemKey(item),
    idempotencyAttributes.notification,
    'is missing',
  );
}

export function decodeIdempotencyRecord(item: Item): IdempotencyRecord {
  const stored = checkItem('idempotency record', idempotencyItem, item);
  return {
    state: stored.state,
    fingerprint: stored.fingerprint,
    owner: stored.owner,
    ...(stored.leaseUntil === undefined ? {} : { leaseUntil: stored.leaseUntil }),
    ...(stored.state === 'done' ? { done: doneResult(item, stored) } : {}),
  };
}
