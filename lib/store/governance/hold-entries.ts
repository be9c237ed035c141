import { heldStatusOf, type NotificationHold } from '#lib/domain/governance/governance';
import type { NotificationOnDashboard } from '#lib/store/dynamo/index-keys';
import * as indexKeys from '#lib/store/dynamo/index-keys';
import * as keys from '#lib/store/dynamo/item-keys';
import type { Item } from '#lib/store/dynamo/items';

/**
 * A held notification's hold entry: a small item beside it whose index entries file it under the
 * status its hold gives (lib/store/dynamo/index-keys.ts). The notification item's own list indexes are
 * taken (the deployment's, the dashboard's, the owner's), so the status lists are this item's. It
 * exists exactly while a hold does: the write that changes the hold puts or deletes it in the same
 * transaction.
 */

/** The hold entry a hold calls for; undefined when nothing holds the notification. */
export function holdEntryItem(
  notification: NotificationOnDashboard,
  hold: NotificationHold,
): Item | undefined {
  const status = heldStatusOf(hold);
  if (!status) return undefined;
  return {
    ...keys.holdEntry(notification.deploymentId, notification.id),
    ...indexKeys.heldNotification(notification, status),
    entity: 'HOLD_ENTRY',
    deploymentId: notification.deploymentId,
    id: notification.id,
    status,
  };
}
