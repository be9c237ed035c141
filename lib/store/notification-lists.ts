import type { ScheduledNotification } from '#lib/domain/notification';
import type { NotificationFilter, RecipientFilter } from '#lib/domain/notification-lifecycle';
import { emptyPage, type PageRequest, type StoredPage } from '#lib/domain/paging';
import { normalizeExternalId } from '#lib/domain/recipients-input';
import { batchGetAll } from '#lib/store/batch';
import { decodeDashboard } from '#lib/store/codecs/dashboards';
import { decodeEmbedUser } from '#lib/store/codecs/embed-users';
import { decodeNotification } from '#lib/store/codecs/notifications';
import { decodeUserLink } from '#lib/store/codecs/users';
import { getItem, type Item } from '#lib/store/items';
import { indexPartitions, isSortableId, keys, type RecipientIdentity } from '#lib/store/keys';
import { encodeCursor, type IndexList, positionOf, queryIndex } from '#lib/store/paging';
import { withSchedules } from '#lib/store/scheduled-notifications';

/**
 * The notifications of a deployment, newest (highest id) first. Without a recipient filter a page
 * is one Query on gsi1 (the deployment) or gsi2 (a dashboard), whose entries are the notification
 * items themselves. With one, it is one Query on the recipient's gsi2 partition (one row per
 * notification it receives) and one BatchGetItem for those notifications.
 */

function notificationIndexList(deploymentId: number, dashboardId?: number): IndexList {
  const [index, value] =
    dashboardId === undefined
      ? ['gsi1', indexPartitions.notificationsOfDeployment(deploymentId)]
      : ['gsi2', indexPartitions.notificationsOfDashboard(deploymentId, dashboardId)];
  return {
    id: value,
    index,
    partitionKey: { name: `${index}pk`, value },
    sortKeyName: `${index}sk`,
    isPosition: isSortableId,
    tableKeyAt: (position) => keys.notification(deploymentId, Number(position)),
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

function recipientIndexList(
  deploymentId: number,
  recipient: ResolvedRecipient,
  dashboardId?: number,
): IndexList {
  const value = indexPartitions.notificationsOfRecipient(deploymentId, recipient.identity);
  return {
    // A dashboard filter makes it another list: its cursors are not valid without it, nor the reverse.
    id: dashboardId === undefined ? value : `${value}|DASHBOARD#${dashboardId}`,
    index: 'gsi2',
    partitionKey: { name: 'gsi2pk', value },
    sortKeyName: 'gsi2sk',
    isPosition: isSortableId,
    tableKeyAt: (position) => ({
      pk: keys.notificationPartition(deploymentId, Number(position)),
      sk: recipient.rowSk(Number(position)),
    }),
  };
}

async function dashboardIdOf(
  deploymentId: number,
  filter: NotificationFilter,
): Promise<number | null | undefined> {
  const dashboard = filter.dashboard;
  if (!dashboard) return undefined;
  if ('dashboardId' in dashboard) return dashboard.dashboardId;
  const item = await getItem(keys.dashboard(dashboard.dashboardPublicId));
  const found = item && decodeDashboard(item);
  // A public id of another deployment's dashboard matches nothing here.
  return found?.deploymentId === deploymentId ? found.id : null;
}

async function pageOfIndex(list: IndexList, page: PageRequest): Promise<StoredPage<ScheduledNotification>> {
  const { items, more } = await queryIndex(list, page.first, positionOf(list, page));
  return {
    // The page's schedule entries: their upcoming instants give each item's `nextRunAt`.
    items: await withSchedules(items),
    cursors: items.map((item) => encodeCursor(list, item[list.sortKeyName] as string)),
    hasNextPage: more,
  };
}

/**
 * Rows of the recipient, newest notification first, joined to their notifications. With a dashboard
 * filter as well, rows of other dashboards are skipped and further rounds read on until the page is
 * full or the recipient's rows end: that case reads in proportion to the rows skipped.
 */
async function pageOfRecipient(
  deploymentId: number,
  list: IndexList,
  page: PageRequest,
  dashboardId: number | undefined,
): Promise<StoredPage<ScheduledNotification>> {
  const found: StoredPage<Item> = emptyPage();
  let position = positionOf(list, page);
  let more = true;
  while (more && found.items.length < page.first) {
    const round = await queryIndex(list, page.first - found.items.length, position);
    more = round.more;
    const notifications = new Map<number, { item: Item; dashboardId: number }>();
    const wanted = round.items.map((row) => keys.notification(deploymentId, Number(row.gsi2sk)));
    for (const item of await batchGetAll(wanted, { eventuallyConsistent: true })) {
      const notification = decodeNotification(item);
      notifications.set(notification.id, { item, dashboardId: notification.dashboardId });
    }
    for (const row of round.items) {
      position = row.gsi2sk as string;
      // A row whose notification is gone belongs to a delete still sweeping its partition.
      const notification = notifications.get(Number(position));
      if (!notification || (dashboardId !== undefined && notification.dashboardId !== dashboardId)) continue;
      found.items.push(notification.item);
      found.cursors.push(encodeCursor(list, position));
    }
  }
  // Rows left unread may all belong to other dashboards: then the next page is empty.
  return { items: await withSchedules(found.items), cursors: found.cursors, hasNextPage: more };
}

export async function listNotifications(
  deploymentId: number,
  filter: NotificationFilter,
  page: PageRequest,
): Promise<StoredPage<ScheduledNotification>> {
  const dashboardId = await dashboardIdOf(deploymentId, filter);
  if (dashboardId === null) return emptyPage();
  if (!filter.recipient) return pageOfIndex(notificationIndexList(deploymentId, dashboardId), page);
  const recipient = await resolveRecipient(deploymentId, filter.recipient);
  if (!recipient) return emptyPage();
  return pageOfRecipient(
    deploymentId,
    recipientIndexList(deploymentId, recipient, dashboardId),
    page,
    dashboardId,
  );
}
