import { type AuditContext, auditEvent, type NewAuditEvent, recipientChanges } from '#lib/domain/audit/audit';
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
import type { RecipientOutput } from '#lib/domain/recipients/recipients';
import type { ScheduleState } from '#lib/domain/schedules/schedule';
import type { ScheduleType } from '#lib/domain/schedules/schedule-fields';
import { type FieldProblem, ValidationError } from '#lib/errors';

/**
 * Reading and listing notifications, and listing and removing their recipients (creating one is in
 * lib/domain/notifications/notification-writes.ts, with the cron code these routes do without; deleting
 * one in lib/domain/deletion/delete-notification.ts, with its webhook event).
 * The rules live here; lib/store/notifications/notification-lifecycle.ts and lib/store/recipients/recipient-lists.ts keep them.
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

/** A recipient to remove, as a removal names it. */
export type RemovedRecipientInput =
  | { type: 'USER'; id: number }
  | { type: 'EMBED_USER'; id: number; embedTenantName: string }
  | { type: 'SLACK'; id: string };

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

/** The recipients a removal names, once checked: Slack items are gone (no Slack recipient can exist). */
export type RemovalTarget =
  | { type: 'USER'; userId: number }
  | { type: 'EMBED_USER'; embedUserId: number; embedTenantName: string };

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

/** List a notification's recipients. */
export interface RecipientListing {
  /** undefined when the notification does not exist. */
  listRecipients(
    notification: NotificationRef,
    window: PageWindow<RecipientOutput>,
  ): Promise<StoredPage<RecipientOutput> | undefined>;
}

/** Remove recipients from a notification. */
export interface RecipientRemoval {
  /**
   * Removes those of `targets` that are subscribed, the last write in one transaction with `eventOf`
   * the recipients removed (none removed: nothing written, nothing recorded); false when the
   * notification does not exist.
   */
  removeRecipients(
    notification: NotificationRef,
    targets: readonly RemovalTarget[],
    eventOf: (removed: readonly RecipientOutput[]) => NewAuditEvent,
  ): Promise<boolean>;
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

export async function listRecipients(
  recipients: RecipientListing,
  target: NotificationRef,
  page: PageRequest,
): Promise<Page<RecipientOutput>> {
  const stored = await recipients.listRecipients(
    target,
    pageWindow(page, (recipient) => recipient),
  );
  if (!stored) throw notificationNotFound(target);
  return toPage(stored, page, (recipient) => recipient);
}

const identityOf = (item: RemovedRecipientInput) =>
  item.type === 'EMBED_USER'
    ? `EMBED_USER\u0000${item.embedTenantName}\u0000${item.id}`
    : `${item.type}\u0000${item.id}`;

/** The whole request is checked (shape by the schema, duplicates here) before the first write. */
function removalTargets(items: readonly RemovedRecipientInput[]): RemovalTarget[] {
  const firstIndex = new Map<string, number>();
  const problems: FieldProblem[] = [];
  items.forEach((item, index) => {
    const earlier = firstIndex.get(identityOf(item));
    if (earlier !== undefined) {
      problems.push({
        path: `recipients.${index}`,
        message: `is the same recipient as recipients[${earlier}]`,
      });
    } else firstIndex.set(identityOf(item), index);
  });
  if (problems.length > 0) throw new ValidationError(problems);
  return items.flatMap((item): RemovalTarget[] => {
    if (item.type === 'USER') return [{ type: 'USER', userId: item.id }];
    if (item.type === 'EMBED_USER')
      return [{ type: 'EMBED_USER', embedUserId: item.id, embedTenantName: item.embedTenantName }];
    return [];
  });
}

export async function removeRecipients(
  recipients: RecipientRemoval,
  target: NotificationRef,
  items: readonly RemovedRecipientInput[],
  audit: AuditContext,
  now: number,
): Promise<void> {
  const targets = removalTargets(items);
  const eventOf = (removed: readonly RecipientOutput[]) =>
    auditEvent(audit, target, 'recipients_removed', recipientChanges(removed), now);
  if (!(await recipients.removeRecipients(target, targets, eventOf))) throw notificationNotFound(target);
}
