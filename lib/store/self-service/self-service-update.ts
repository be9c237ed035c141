import type { SubscriptionUpdate } from '#lib/domain/self-service/self-service-writes';
import { notificationUpdate } from '#lib/store/notifications/notifications';
import { addRecipientsStore } from '#lib/store/recipients/recipients';
import { selfServiceTenants, subscriptionDirectory } from '#lib/store/self-service/self-service';

/** The update's adapter: the notification's own update, then the recipient refreshed. */
export const subscriptionUpdate: SubscriptionUpdate = {
  tenants: selfServiceTenants,
  directory: subscriptionDirectory,
  notifications: notificationUpdate,
  recipients: addRecipientsStore,
};
