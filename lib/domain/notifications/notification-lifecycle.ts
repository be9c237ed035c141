import type { NewAuditEvent } from '#lib/domain/audit/audit';
import { governanceOf, type HeldStatus } from '#lib/domain/governance/governance';
import type { HeldKey, IdempotencyKeys } from '#lib/domain/idempotency';
import {
  type Notification,
  type NotificationDto,
  type NotificationRef,
  notificationNotFound,
  type ScheduledNotification,
  toNotificationDto,
} from '#lib/domain/notifications/notification';
import type { UpdateNotificationInput } from '#lib/domain/notifications/notification-fields';
import {
  type Page,
  type PageRequest,
  type PageWindow,
  pageWindow,
  type StoredPage,
  toPage,
} from '#lib/domain/paging';
import type { ScheduleState } from '#lib/domain/schedules/schedule';
import type { ScheduleType } from '#lib/domain/schedules/schedule-fields';

/**
 * Reading and listing notifications (listing and removing their recipients is in
 * lib/domain/recipients/recipient-lists.ts; creating one is in
 * lib/domain/notifications/notification-writes.ts, with the cron code these routes do without; deleting
 * one in lib/domain/deletion/delete-notification.ts, with its webhook event).
 * The rules live here; lib/store/notifications/notification-lifecycle.ts keeps them.
 */

/** A create: the update's fields, a schedule type that must be given, and exactly one dashboard reference. */
export interface CreateNotificationInput extends UpdateNotificationInput {
  scheduleType: ScheduleType;
  dashboardId?: number;
  dashboardPublicId?: string;
}

export interface ListNotificationsQuery extends PageRequest {
  dashboardId?: number;
  dashboardPublicId?: string;
  recipientUserId?: number;
  recipientEmail?: string;
  recipientEmbedTenantName?: string;
  recipientExternalId?: string;
  ownerUserId?: number;
  status?: HeldStatus;
}

export type DashboardRef = { dashboardId: number } | { dashboardPublicId: string };
export type RecipientFilter =
  | { userId: number }
  | { email: string }
  | { embedTenantName: string; externalId: string };

export interface NotificationFilter {
  dashboard?: DashboardRef;
  recipient?: RecipientFilter;
  /** The console user who owns them. */
  ownerUserId?: number;
  /** Their status at `at` (the answer's instant), as each item's `status` answers it. */
  status?: { is: HeldStatus; at: number };
}

/**
 * Whether a notification read from a list passes the owner and status filters. The status is the one
 * the answer shows: an index files a notification by its hold, and a hold may no longer make the status
 * when read (an owner gone inactive makes it orphaned, a pause whose `until` has come is over).
 */
export function passesOwnerAndStatus(scheduled: ScheduledNotification, filter: NotificationFilter): boolean {
  const { notification } = scheduled;
  if (
    filter.ownerUserId !== undefined &&
    !(notification.owner?.type === 'USER' && notification.owner.userId === filter.ownerUserId)
  )
    return false;
  if (filter.status === undefined) return true;
  return (
    governanceOf(notification, scheduled.owner ?? 'active', filter.status.at).status === filter.status.is
  );
}

/*
 * One port per use case, each implemented by one store adapter (lib/store) that the operation's
 * function passes: a function bundles the storage code of its own use case only.
 */

/** Get: a notification with its schedule state. */
export interface NotificationLookup {
  find(deploymentId: number, id: number): Promise<ScheduledNotification | undefined>;
}

/** Create: the dashboard named, then the new notification, at most once per Idempotency-Key. */
export interface NotificationCreation extends IdempotencyKeys {
  /** The integer id of a dashboard of this deployment, or undefined when it has none such. */
  dashboardIdOf(deploymentId: number, ref: DashboardRef): Promise<number | undefined>;
  /**
   * Stores a new notification under a fresh id, with its schedule state, and marks the held key
   * done in the same write.
   */
  create(
    draft: Omit<Notification, 'id'>,
    schedule: ScheduleState & { signature: string },
    held: HeldKey | undefined,
    /** The `created` event, written in the create's transaction. */
    record: (notification: Notification) => NewAuditEvent,
  ): Promise<Notification>;
  /** Whether the notification still exists (a key's repeat after its delete is 404). */
  isLive(ref: NotificationRef): Promise<boolean>;
}

/** List a deployment's notifications. */
export interface NotificationListing {
  /** A page of at most `first` items and `maxBytes` of their JSON; a foreign cursor is a 400 naming `after`. */
  list(
    deploymentId: number,
    filter: NotificationFilter,
    window: PageWindow<ScheduledNotification>,
  ): Promise<StoredPage<ScheduledNotification>>;
}

export async function getNotification(
  notifications: NotificationLookup,
  target: NotificationRef,
  now: number,
): Promise<NotificationDto> {
  const notification = await notifications.find(target.deploymentId, target.id);
  if (!notification) throw notificationNotFound(target);
  return toNotificationDto(notification, now);
}

function filterOf(query: ListNotificationsQuery, now: number): NotificationFilter {
  const filter: NotificationFilter = {};
  if (query.ownerUserId !== undefined) filter.ownerUserId = query.ownerUserId;
  if (query.status !== undefined) filter.status = { is: query.status, at: now };
  if (query.dashboardId !== undefined) filter.dashboard = { dashboardId: query.dashboardId };
  else if (query.dashboardPublicId !== undefined)
    filter.dashboard = { dashboardPublicId: query.dashboardPublicId };
  if (query.recipientUserId !== undefined) filter.recipient = { userId: query.recipientUserId };
  else if (query.recipientEmail !== undefined) filter.recipient = { email: query.recipientEmail };
  else if (query.recipientEmbedTenantName !== undefined && query.recipientExternalId !== undefined) {
    filter.recipient = {
      embedTenantName: query.recipientEmbedTenantName,
      externalId: query.recipientExternalId,
    };
  }
  return filter;
}

export async function listNotifications(
  notifications: NotificationListing,
  deploymentId: number,
  query: ListNotificationsQuery,
  now: number,
): Promise<Page<NotificationDto>> {
  const page = { first: query.first, after: query.after };
  // One moment for the whole page: each item's `nextRunAt` is its first instant after the answer.
  const toDto = (notification: ScheduledNotification) => toNotificationDto(notification, now);
  const stored = await notifications.list(deploymentId, filterOf(query, now), pageWindow(page, toDto));
  return toPage(stored, page, toDto);
}
