import type { ScheduledNotification } from '#lib/domain/notifications/notification';
import type {
  NotificationFilter,
  NotificationListing,
  RecipientFilter,
} from '#lib/domain/notifications/notification-lifecycle';
import { emptyPage, type PageWindow, type StoredPage } from '#lib/domain/paging';
import { normalizeExternalId } from '#lib/domain/recipients/recipients-input';
import { decodeEmbedUser } from '#lib/store/codecs/embed-users';
import { decodeUserLink } from '#lib/store/codecs/users';
import { batchGetAll } from '#lib/store/dynamo/batch';
import type { RecipientIdentity } from '#lib/store/dynamo/index-keys';
import * as indexKeys from '#lib/store/dynamo/index-keys';
import * as keys from '#lib/store/dynamo/item-keys';
import { getItem, type Item } from '#lib/store/dynamo/items';
import { indexes, isSortableId } from '#lib/store/dynamo/keys';
import { keyNamesOf, type ListReader, type ListSource, readPage } from '#lib/store/dynamo/paging';
import { dashboardByPublicId } from '#lib/store/embedding/dashboards';
import { withSchedules } from '#lib/store/notifications/scheduled-notifications';

/**
 * The notifications of a deployment, newest (highest id) first. Without a recipient filter a page
 * is read from gsi1 (the deployment) or gsi2 (a dashboard), whose entries are the notification items
 * themselves. With one, from the recipient's rows (one per notification it receives: gsi2, or gsi4
 * for the recipient on one dashboard), joined by key to their notifications.
 */

function notificationsReader(deploymentId: number, dashboardId?: number): ListReader<ScheduledNotification> {
  const [index, partition] =
    dashboardId === undefined
      ? [indexes.gsi1, indexKeys.notificationsOfDeployment(deploymentId)]
      : [indexes.gsi2, indexKeys.notificationsOfDashboard(deploymentId, dashboardId)];
  return {
    source: {
      id: partition,
      index,
      partition,
      newestFirst: true,
      isPosition: isSortableId,
      tableKeyAt: (position) => keys.notification(deploymentId, Number(position)),
    },
    // The rows' schedule entries: their upcoming instants give each item's `nextRunAt`.
    resolve: async (rows) => ({ items: await withSchedules(rows), requests: Math.ceil(rows.length / 100) }),
  };
}

interface ResolvedRecipient {
  identity: RecipientIdentity;
  /** The sort key of this recipient's row in a notification's partition. */
  rowSk: (notificationId: number) => string;
}

/** The recipient a filter names, or undefined when there is none such (the list is then empty). */
async function resolveRecipient(
  deploymentId: number,
  filter: RecipientFilter,
): Promise<ResolvedRecipient | undefined> {
  if ('embedTenantName' in filter) {
    const normalized = normalizeExternalId(filter.externalId);
    const embedUser = await getItem(keys.embedUser(filter.embedTenantName, normalized));
    if (!embedUser) return undefined;
    return {
      identity: { type: 'EMBED_USER', embedUserId: decodeEmbedUser(embedUser).embedUserId },
      rowSk: (id) => keys.embedRecipient(deploymentId, id, filter.embedTenantName, normalized).sk,
    };
  }
  let userId: number;
  if ('email' in filter) {
    const link = await getItem(keys.userByEmail(filter.email));
    if (!link) return undefined;
    userId = decodeUserLink(link);
  } else userId = filter.userId;
  return {
    identity: { type: 'USER', userId },
    rowSk: (id) => keys.userRecipient(deploymentId, id, userId).sk,
  };
}

/**
 * The recipient's rows, newest notification first: on gsi2 for all its notifications, on gsi4 for
 * those on one dashboard. Either way every row read is a row of the page: no row is read to be
 * skipped, so a page costs the same whatever else the recipient receives.
 */
function recipientRowsSource(
  deploymentId: number,
  recipient: ResolvedRecipient,
  dashboardId?: number,
): ListSource {
  const [index, partition] =
    dashboardId === undefined
      ? [indexes.gsi2, indexKeys.notificationsOfRecipient(deploymentId, recipient.identity)]
      : [
          indexes.gsi4,
          indexKeys.notificationsOfRecipientOnDashboard(deploymentId, recipient.identity, dashboardId),
        ];
  return {
    id: partition,
    index,
    partition,
    newestFirst: true,
    isPosition: isSortableId,
    tableKeyAt: (position) => ({
      pk: keys.notificationPartition(deploymentId, Number(position)),
      sk: recipient.rowSk(Number(position)),
    }),
  };
}

/** Notifications are read a few at first: one may weigh 330 KB, and a page holds 1 MiB of them. */
const FIRST_NOTIFICATIONS_READ = 8;

function recipientReader(deploymentId: number, source: ListSource): ListReader<ScheduledNotification> {
  const idOf = (row: Item) => Number(row[keyNamesOf(source).sortKey]);
  return {
    source,
    firstSlice: FIRST_NOTIFICATIONS_READ,
    async resolve(rows) {
      const wanted = rows.map((row) => keys.notification(deploymentId, idOf(row)));
      const notifications = new Map<number, ScheduledNotification>();
      for (const scheduled of await withSchedules(
        await batchGetAll(wanted, { eventuallyConsistent: true }),
      )) {
        notifications.set(scheduled.notification.id, scheduled);
      }
      // A row whose notification is gone belongs to a delete still sweeping its partition.
      return {
        items: rows.map((row) => notifications.get(idOf(row))),
        requests: 2 * Math.ceil(rows.length / 100),
      };
    },
  };
}

/** The dashboard a filter names: its id, null when the deployment has no such dashboard, undefined for no filter. */
async function dashboardFilterOf(
  deploymentId: number,
  filter: NotificationFilter,
): Promise<number | null | undefined> {
  const dashboard = filter.dashboard;
  if (!dashboard) return undefined;
  // An id needs no read: a dashboard the deployment lacks has no notifications to list.
  if ('dashboardId' in dashboard) return dashboard.dashboardId;
  return (await dashboardByPublicId(deploymentId, dashboard.dashboardPublicId))?.id ?? null;
}

async function listNotifications(
  deploymentId: number,
  filter: NotificationFilter,
  window: PageWindow<ScheduledNotification>,
): Promise<StoredPage<ScheduledNotification>> {
  const dashboardId = await dashboardFilterOf(deploymentId, filter);
  if (dashboardId === null) return emptyPage();
  if (!filter.recipient) return readPage(notificationsReader(deploymentId, dashboardId), window);
  const recipient = await resolveRecipient(deploymentId, filter.recipient);
  if (!recipient) return emptyPage();
  const source = recipientRowsSource(deploymentId, recipient, dashboardId);
  return readPage(recipientReader(deploymentId, source), window);
}

/** The notification list's adapter. */
export const notificationListing: NotificationListing = { list: listNotifications };
