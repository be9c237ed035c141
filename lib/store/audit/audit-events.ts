import { randomBytes } from 'node:crypto';
import * as z from 'zod/mini';
import { config } from '#lib/config';
import { type AuditEvent, auditActions, type NewAuditEvent } from '#lib/domain/audit/audit';
import type { AuditListing } from '#lib/domain/audit/audit-lists';
import type { NotificationRef } from '#lib/domain/notifications/notification';
import { userKinds } from '#lib/domain/recipients/recipient-kinds';
import { checkItem } from '#lib/store/codecs/stored-item';
import { tableName } from '#lib/store/dynamo/client';
import * as indexKeys from '#lib/store/dynamo/index-keys';
import * as keys from '#lib/store/dynamo/item-keys';
import { getItem, type Item } from '#lib/store/dynamo/items';
import { indexes, sortableId, TIME_TO_LIVE_ATTRIBUTE } from '#lib/store/dynamo/keys';
import { type ListSource, readPage } from '#lib/store/dynamo/paging';

/**
 * Audit events in storage: each in its notification's audit partition (keys.auditEvent), and in its
 * deployment's list (gsi1). An event is only ever written as one Put in the transaction of the change
 * it records; it expires AUDIT_RETENTION_DAYS after its instant, whether its notification lives on or not.
 */

const DAY_SECONDS = 24 * 60 * 60;

/**
 * Event ids sort by their instant, then at random (two events of one millisecond): a notification's
 * events and a deployment's are listed newest first by them.
 */
const eventIdAt = (at: string) => `${at}-${randomBytes(6).toString('hex')}`;
const eventIdShape = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z-[0-9a-f]{12}$/;
const isEventId = (value: string) => eventIdShape.test(value);

/** `changes` is kept as JSON text: its values are the caller's, and may nest deeper than DynamoDB's 32 levels. */
const CHANGES_ATTRIBUTE = 'changesJson';

function encodeAuditEvent(event: AuditEvent): Item {
  const { changes, ...rest } = event;
  return {
    ...keys.auditEvent(event.deploymentId, event.notificationId, event.eventId),
    ...indexKeys.auditEvent(event.deploymentId, event.notificationId, event.eventId),
    entity: 'AUDIT_EVENT',
    ...rest,
    [CHANGES_ATTRIBUTE]: JSON.stringify(changes),
    [TIME_TO_LIVE_ATTRIBUTE]:
      Math.floor(Date.parse(event.at) / 1000) + config().auditRetentionDays * DAY_SECONDS,
  };
}

const auditEventItem = () =>
  z.looseObject({
    eventId: z.string(),
    at: z.string(),
    deploymentId: z.int(),
    notificationId: z.int(),
    action: z.enum(auditActions),
    actor: z.looseObject({ type: z.enum([...userKinds, 'RECIPIENT', 'SYSTEM']) }),
    [CHANGES_ATTRIBUTE]: z.string(),
    requestId: z.nullable(z.string()),
  });

function decodeAuditEvent(item: Item): AuditEvent {
  const stored = checkItem('audit event', auditEventItem, item);
  return {
    eventId: stored.eventId,
    at: stored.at,
    deploymentId: stored.deploymentId,
    notificationId: stored.notificationId,
    action: stored.action,
    actor: stored.actor as AuditEvent['actor'],
    changes: JSON.parse(stored[CHANGES_ATTRIBUTE]) as AuditEvent['changes'],
    requestId: stored.requestId,
  };
}

/** The event as an action of the transaction that makes its change: a new item, never one overwritten. */
export const auditEventPut = (event: NewAuditEvent) => ({
  Put: {
    TableName: tableName(),
    Item: encodeAuditEvent({ ...event, eventId: eventIdAt(event.at) }),
    ConditionExpression: 'attribute_not_exists(pk)',
  },
});

const decodedAll = (rows: Item[]) => ({ items: rows.map(decodeAuditEvent), requests: 0 });

/** A notification's events: its audit partition, newest first. */
function notificationSource(target: NotificationRef): ListSource {
  return {
    id: `events/${target.deploymentId}/${target.id}`,
    partition: keys.auditPartition(target.deploymentId, target.id),
    sortKey: { prefix: keys.AUDIT_EVENT_PREFIX },
    newestFirst: true,
    isPosition: isEventId,
  };
}

/** A deployment's events: its gsi1 partition, newest first; a position is an event id and its notification. */
function deploymentSource(deploymentId: number): ListSource {
  return {
    id: `events/${deploymentId}`,
    index: indexes.gsi1,
    partition: indexKeys.eventsOfDeployment(deploymentId),
    newestFirst: true,
    isPosition: (position) => {
      const [eventId = '', notification = ''] = position.split('#');
      return position.split('#').length === 2 && isEventId(eventId) && /^\d{15}$/.test(notification);
    },
    tableKeyAt: (position) => {
      const [eventId = '', notification = ''] = position.split('#');
      return keys.auditEvent(deploymentId, Number(notification), eventId);
    },
  };
}

export const auditListing: AuditListing = {
  async ofNotification(target, window) {
    if ((await getItem(keys.notification(target.deploymentId, target.id))) === undefined) return undefined;
    return readPage({ source: notificationSource(target), resolve: decodedAll }, window);
  },

  ofDeployment(deploymentId, notificationId, window) {
    const source =
      notificationId === undefined
        ? deploymentSource(deploymentId)
        : // One notification's, deleted or not: its own partition, which outlives it.
          {
            ...notificationSource({ deploymentId, id: notificationId }),
            id: `events/${deploymentId}/${sortableId(notificationId)}/all`,
          };
    return readPage({ source, resolve: decodedAll }, window);
  },
};
