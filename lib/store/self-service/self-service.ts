import { GetCommand, PutCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import type { NewAuditEvent } from '#lib/domain/audit/audit';
import type { EmbedUser } from '#lib/domain/entities';
import type { HeldKey } from '#lib/domain/idempotency';
import type {
  Notification,
  NotificationOwner,
  ScheduledNotification,
} from '#lib/domain/notifications/notification';
import type { NotificationCreation } from '#lib/domain/notifications/notification-lifecycle';
import type { StoredPage } from '#lib/domain/paging';
import { normalizeExternalId } from '#lib/domain/recipients/recipients-input';
import type { ScheduleState } from '#lib/domain/schedules/schedule';
import type { SelfServiceTenants, SubscriptionDirectory } from '#lib/domain/self-service/self-service';
import type { SubscriptionCreation } from '#lib/domain/self-service/self-service-writes';
import { ConflictError, ValidationError } from '#lib/errors';
import { auditEventPut } from '#lib/store/audit/audit-events';
import { decodeEmbedUser, encodeEmbedUser } from '#lib/store/codecs/embed-users';
import { encodeNotification, encodeScheduleEntry } from '#lib/store/codecs/notifications';
import {
  countKey,
  decodeLink,
  decodeSelfServiceSettings,
  encodeLink,
  SELF_SERVICE_COUNT_ATTRIBUTE,
  selfServiceAttributes,
  selfServiceCountEntity,
} from '#lib/store/codecs/self-service';
import { batchGetAll } from '#lib/store/dynamo/batch';
import { documentClient, tableName } from '#lib/store/dynamo/client';
import { conditionHeld, contendedRetries, ifConditionHolds, transact } from '#lib/store/dynamo/conditional';
import * as keys from '#lib/store/dynamo/item-keys';
import { getItem, itemUpdate, updateItem } from '#lib/store/dynamo/items';
import { tableKeySchema } from '#lib/store/dynamo/keys';
import { queryPage } from '#lib/store/dynamo/query';
import { absent, compare, conditionOf, either, exists } from '#lib/store/dynamo/update-expression';
import { dashboardLookup } from '#lib/store/embedding/dashboards';
import { claimKey, completeKey, keyDoneMark, keyInUse, releaseKey } from '#lib/store/idempotency';
import { notificationIsLive } from '#lib/store/notifications/notification-guard';
import { nextNotificationId } from '#lib/store/notifications/notification-ids';
import { findScheduledNotification, withSchedules } from '#lib/store/notifications/scheduled-notifications';
import { reserveEmbedUserIds } from '#lib/store/recipients/embed-users';
import { addRecipientsStore } from '#lib/store/recipients/recipients';

/** A tenant's settings: read from its item; set with one conditional UpdateItem, no read first. */
export const selfServiceTenants: SelfServiceTenants = {
  async settingsOf(tenant) {
    const item = await getItem(keys.embedTenant(tenant));
    return item && decodeSelfServiceSettings(item);
  },
  async configure(tenant, changes) {
    const set: Record<string, unknown> = {};
    for (const [field, attribute] of Object.entries(selfServiceAttributes)) {
      const value = changes[field as keyof typeof changes];
      if (value !== undefined) set[attribute] = value;
    }
    const updated = await ifConditionHolds(() =>
      updateItem(
        keys.embedTenant(tenant),
        { set, condition: [exists(tableKeySchema.partitionKey)] },
        'ALL_NEW',
      ),
    );
    return updated && decodeSelfServiceSettings(updated);
  },
};

/** The embed user, created with one id from the sequence when new; a concurrent creator's wins. */
async function embedUser(tenant: string, externalId: string, email: string): Promise<EmbedUser> {
  const key = keys.embedUser(tenant, normalizeExternalId(externalId));
  const stored = await getItem(key);
  if (stored) return decodeEmbedUser(stored);
  const user: EmbedUser = {
    embedUserId: await reserveEmbedUserIds(1),
    embedTenantName: tenant,
    externalId: externalId.trim(),
    email,
  };
  const created = await conditionHeld(() =>
    documentClient().send(
      new PutCommand({
        TableName: tableName(),
        Item: encodeEmbedUser(user),
        ...conditionOf(absent(tableKeySchema.partitionKey)),
      }),
    ),
  );
  if (created) return user;
  const { Item } = await documentClient().send(
    new GetCommand({ TableName: tableName(), Key: key, ConsistentRead: true }),
  );
  if (!Item) throw new Error('An embed user found taken and then gone');
  return decodeEmbedUser(Item);
}

const MAX_ID_ATTEMPTS = 3;

const limitReached = (maxPerUser: number) =>
  new ConflictError(`An embed user may hold at most ${maxPerUser} subscriptions; delete one first`);

/**
 * Whether the owner holds the most they may already: read before an id is drawn, so that a create
 * refused for the limit leaves even the id counter as it was. The transaction's condition on the same
 * count still decides between concurrent creates.
 */
async function atLimit(owner: Extract<NotificationOwner, { type: 'EMBED_USER' }>, maxPerUser: number) {
  const count = (await getItem(countKey(owner)))?.[SELF_SERVICE_COUNT_ATTRIBUTE];
  return typeof count === 'number' && count >= maxPerUser;
}

/**
 * The notification, its schedule entry, the owner's count (only while below `maxPerUser`) and their
 * link to it, in one transaction: concurrent creates of one user meet at the count, so no more than
 * the limit are ever made, and a crash leaves all or nothing. False when the id was taken.
 */
function insertOwned(owner: Extract<NotificationOwner, { type: 'EMBED_USER' }>, maxPerUser: number) {
  return async (
    notification: Notification,
    schedule: ScheduleState & { signature: string },
    held: HeldKey | undefined,
    event: NewAuditEvent,
  ) => {
    const table = tableName();
    const send = () =>
      documentClient().send(
        new TransactWriteCommand({
          TransactItems: [
            {
              Put: {
                TableName: table,
                Item: encodeNotification(notification),
                ...conditionOf(absent(tableKeySchema.partitionKey)),
              },
            },
            {
              Put: {
                TableName: table,
                Item: encodeScheduleEntry(notification, { ...schedule, scheduleVersion: 0 }),
                ...conditionOf(absent(tableKeySchema.partitionKey)),
              },
            },
            {
              Update: itemUpdate(countKey(owner), {
                set: selfServiceCountEntity,
                add: { [SELF_SERVICE_COUNT_ATTRIBUTE]: 1 },
                condition: [
                  either(
                    absent(SELF_SERVICE_COUNT_ATTRIBUTE),
                    compare(SELF_SERVICE_COUNT_ATTRIBUTE, '<', maxPerUser),
                  ),
                ],
              }),
            },
            {
              Put: { TableName: table, Item: encodeLink(owner, notification.deploymentId, notification.id) },
            },
            ...(held ? [{ Update: keyDoneMark(held, { kind: 'notification', notification }) }] : []),
            auditEventPut(event),
          ],
        }),
      );
    return transact(
      send,
      {
        written: true,
        cancelled: ({ failedAt }) => {
          if (failedAt(4)) throw keyInUse();
          if (failedAt(2)) throw limitReached(maxPerUser);
          return failedAt(0) || failedAt(1) ? false : undefined;
        },
      },
      // Every create of one user meets the others at the count.
      contendedRetries,
    );
  };
}

function ownedCreation(owner: NotificationOwner, maxPerUser: number): NotificationCreation {
  if (owner.type !== 'EMBED_USER') throw new Error('Self-service subscriptions belong to embed users');
  const insert = insertOwned(owner, maxPerUser);
  return {
    // The dashboard was found and checked by its public id already.
    dashboardIdOf: async (_deploymentId, ref) => ('dashboardId' in ref ? ref.dashboardId : undefined),
    async create(draft, schedule, held, record) {
      if (await atLimit(owner, maxPerUser)) throw limitReached(maxPerUser);
      for (let attempt = 1; ; attempt++) {
        const notification: Notification = { ...draft, owner, id: await nextNotificationId() };
        if (await insert(notification, schedule, held, record(notification))) return notification;
        if (attempt >= MAX_ID_ATTEMPTS) throw new ConflictError('No free notification id was found; retry');
      }
    },
    isLive: notificationIsLive,
    claimKey,
    completeKey,
    releaseKey,
  };
}

const cursorOf = (sk: string) => Buffer.from(sk, 'utf8').toString('base64url');
function positionOf(cursor: string): string {
  const sk = Buffer.from(cursor, 'base64url').toString('utf8');
  if (!/^SELF_SERVICE#[0-9]{15}$/.test(sk) || cursorOf(sk) !== cursor)
    throw new ValidationError([{ path: 'after', message: 'is not a cursor of this list' }]);
  return sk;
}

/** The caller's links, newest first, a page at a time; their notifications joined by key. */
export const subscriptionDirectory: SubscriptionDirectory = {
  async deploymentOf(tenant, externalId, id) {
    const link = await getItem(keys.selfServiceLink(tenant, normalizeExternalId(externalId), id));
    return link && decodeLink(link).deploymentId;
  },
  find: findScheduledNotification,
  async list(tenant, externalId, window) {
    const { pk } = countKey({ embedTenantName: tenant, externalId });
    const after = window.after === undefined ? undefined : positionOf(window.after);
    // One more than asked: whether another page follows is known without reading an empty one.
    const { items: read } = await queryPage(
      {
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
        ExpressionAttributeValues: { ':pk': pk, ':prefix': keys.SELF_SERVICE_LINK_PREFIX },
        ScanIndexForward: false,
        Limit: window.first + 1,
      },
      after === undefined ? undefined : { pk, sk: after },
    );
    const links = read.slice(0, window.first).map((item) => ({ sk: String(item.sk), ...decodeLink(item) }));
    const found = await batchGetAll(links.map((link) => keys.notification(link.deploymentId, link.id)));
    const byPartition = new Map(found.map((item) => [item.pk, item]));
    // Links and notifications go in one transaction: a link without its notification is not listed.
    const listed = links.flatMap((link) => {
      const item = byPartition.get(keys.notificationPartition(link.deploymentId, link.id));
      return item ? [{ link, item }] : [];
    });
    const scheduled = await withSchedules(listed.map(({ item }) => item));
    const page: StoredPage<ScheduledNotification> = {
      items: [],
      cursors: [],
      hasNextPage: read.length > window.first,
    };
    let bytes = 0;
    for (const [i, notification] of scheduled.entries()) {
      bytes += window.bytesOf(notification);
      if (bytes > window.maxBytes && page.items.length > 0) {
        page.hasNextPage = true;
        break;
      }
      page.items.push(notification);
      page.cursors.push(cursorOf(listed[i]?.link.sk ?? ''));
    }
    return page;
  },
};

/** The create's adapter. */
export const subscriptionCreation: SubscriptionCreation = {
  tenants: selfServiceTenants,
  dashboards: dashboardLookup,
  embedUser,
  notifications: ownedCreation,
  recipients: addRecipientsStore,
};
