import type { SubscriptionUpdate } from '#lib/domain/self-service-writes';
import { notificationUpdate } from '#lib/store/notifications';
import { addRecipientsStore } from '#lib/store/recipients';
import { selfServiceTenants, subscriptionDirectory } from '#lib/store/self-service';

/** The update's adapter: the notification's own update, then the recipient refreshed. */
export const subscriptionUpdate: SubscriptionUpdate = {
  tenants: selfServiceTenants,
  directory: subscriptionDirectory,
  notifications: notificationUpdate,
  recipients: addRecipientsStore,
};
