import type { HeldStatus } from '#lib/domain/governance/governance';
import type { ScheduledNotification } from '#lib/domain/notifications/notification';
import {
  type NotificationFilter,
  type NotificationListing,
  passesOwnerAndStatus,
  type RecipientFilter,
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
import { indexes, isSortableId, NOTIFICATION_ITEMS_PREFIX } from '#lib/store/dynamo/keys';
import { keyNamesOf, type ListReader, type ListSource, readPage } from '#lib/store/dynamo/paging';
import { dashboardByPublicId } from '#lib/store/embedding/dashboards';
import { withSchedules } from '#lib/store/notifications/scheduled-notifications';

/**
 * The notifications of a deployment, newest (highest id) first. Without other filters a page is read
 * from gsi1 (the deployment) or gsi2 (a dashboard), whose entries are the notification items
 * themselves. With a recipient, from the recipient's rows (one per notification it receives: gsi2,
 * or gsi4 for the recipient on one dashboard); with an owner, from the owner's entries (gsi4 of the
 * notification items); with a status, from the hold entries (gsi1, or gsi2 on one dashboard): each
 * joined by key to their notifications.
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

/** What a joined list checks of each row's notification beyond what its index key selects. */
interface JoinChecks {
  /** A row of the recipient's that the notification must have (the status lists know no recipients). */
  recipient?: ResolvedRecipient;
  /** A filter the index key does not serve: a notification that fails it is left out. */
  passes?: (scheduled: ScheduledNotification) => boolean;
}

/**
 * A list whose rows (recipient rows, hold entries, owner entries) name notifications by the id in
 * their sort key, joined to them by key. With checks the list is sparse: rows whose notification fails
 * them are read and left out, and a page ends at the pager's bound of requests whatever it holds.
 */
function joinedReader(
  deploymentId: number,
  source: ListSource,
  checks: JoinChecks = {},
): ListReader<ScheduledNotification> {
  const idOf = (row: Item) => Number(row[keyNamesOf(source).sortKey]);
  const { recipient, passes } = checks;
  const recipientRowKey = (id: number) =>
    recipient && { pk: keys.notificationPartition(deploymentId, id), sk: recipient.rowSk(id) };
  return {
    source,
    firstSlice: FIRST_NOTIFICATIONS_READ,
    sparse: recipient !== undefined || passes !== undefined,
    async resolve(rows) {
      const ids = rows.map(idOf);
      const wanted = [
        ...ids.map((id) => keys.notification(deploymentId, id)),
        ...ids.flatMap((id) => recipientRowKey(id) ?? []),
      ];
      const found = await batchGetAll(wanted, { eventuallyConsistent: true });
      const isNotification = (item: Item) => item.sk === NOTIFICATION_ITEMS_PREFIX;
      const subscribed = new Set(found.filter((item) => !isNotification(item)).map((item) => item.pk));
      const notifications = new Map<number, ScheduledNotification>();
      for (const scheduled of await withSchedules(found.filter(isNotification))) {
        const { notification } = scheduled;
        const partition = keys.notificationPartition(deploymentId, notification.id);
        if (recipient && !subscribed.has(partition)) continue;
        if (passes && !passes(scheduled)) continue;
        notifications.set(notification.id, scheduled);
      }
      // A row whose notification is gone belongs to a delete still sweeping its partition.
      return {
        items: ids.map((id) => notifications.get(id)),
        requests: 2 * Math.ceil(wanted.length / 100),
      };
    },
  };
}

/** gsi4: the notifications a console user owns, the owner entries being the notification items. */
function ownedSource(deploymentId: number, ownerUserId: number): ListSource {
  const partition = indexKeys.notificationsOfOwner(deploymentId, ownerUserId);
  return {
    id: partition,
    index: indexes.gsi4,
    partition,
    newestFirst: true,
    isPosition: isSortableId,
    tableKeyAt: (position) => keys.notification(deploymentId, Number(position)),
  };
}

/** gsi1 or gsi2: the hold entries of the deployment's (or a dashboard's) notifications held in a status. */
function heldSource(deploymentId: number, status: HeldStatus, dashboardId?: number): ListSource {
  const [index, partition] =
    dashboardId === undefined
      ? [indexes.gsi1, indexKeys.notificationsWithStatus(deploymentId, status)]
      : [indexes.gsi2, indexKeys.notificationsOfDashboardWithStatus(deploymentId, dashboardId, status)];
  return {
    id: partition,
    index,
    partition,
    newestFirst: true,
    isPosition: isSortableId,
    tableKeyAt: (position) => keys.holdEntry(deploymentId, Number(position)),
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

/**
 * The list that serves a filter, read from the index whose key selects the most of it: a status
 * (the hold entries, by deployment or dashboard), else a recipient (their rows, by deployment or
 * dashboard), else an owner (their entries), else the dashboard or the deployment. What the key does
 * not select is checked on each row's notification (JoinChecks); the status always is, as it is
 * decided when read (docs/notifications.md names the index of each combination).
 */
async function listNotifications(
  deploymentId: number,
  filter: NotificationFilter,
  window: PageWindow<ScheduledNotification>,
): Promise<StoredPage<ScheduledNotification>> {
  const dashboardId = await dashboardFilterOf(deploymentId, filter);
  if (dashboardId === null) return emptyPage();
  const recipient = filter.recipient && (await resolveRecipient(deploymentId, filter.recipient));
  if (filter.recipient && !recipient) return emptyPage();
  const ownerAndStatus = (scheduled: ScheduledNotification) => passesOwnerAndStatus(scheduled, filter);
  if (filter.status) {
    const source = heldSource(deploymentId, filter.status.is, dashboardId);
    return readPage(
      joinedReader(deploymentId, source, { passes: ownerAndStatus, ...(recipient && { recipient }) }),
      window,
    );
  }
  const byOwner = filter.ownerUserId !== undefined;
  if (recipient) {
    const source = recipientRowsSource(deploymentId, recipient, dashboardId);
    return readPage(joinedReader(deploymentId, source, byOwner ? { passes: ownerAndStatus } : {}), window);
  }
  if (filter.ownerUserId !== undefined) {
    const source = ownedSource(deploymentId, filter.ownerUserId);
    const onDashboard = (scheduled: ScheduledNotification) =>
      scheduled.notification.dashboardId === dashboardId;
    return readPage(
      joinedReader(deploymentId, source, dashboardId === undefined ? {} : { passes: onDashboard }),
      window,
    );
  }
  return readPage(notificationsReader(deploymentId, dashboardId), window);
}

/** The notification list's adapter. */
export const notificationListing: NotificationListing = { list: listNotifications };
