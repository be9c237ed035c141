import { createHash } from 'node:crypto';
import {
  applyNotificationUpdate,
  type Notification,
  type NotificationDto,
  type NotificationSettings,
  toNotificationDto,
} from '#lib/domain/notification';
import type { UpdateNotificationInput } from '#lib/domain/notification-fields';
import {
  type Page,
  type PageRequest,
  type PageWindow,
  pageWindow,
  type StoredPage,
  toPage,
} from '#lib/domain/paging';
import type { NotificationRef, RecipientOutput } from '#lib/domain/recipients';
import { canonicalJson } from '#lib/domain/recipients-properties';
import type { ScheduleType } from '#lib/domain/schedule-fields';
import { type FieldProblem, NotFoundError, ValidationError } from '#lib/errors';

/**
 * Creating, reading, listing and deleting notifications, and listing and removing their recipients.
 * The rules live here; lib/store/notification-lifecycle.ts and lib/store/recipient-lists.ts keep them.
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
}

/** An Idempotency-Key as stored: scoped to deployment and caller, with the fingerprint of its body. */
export interface IdempotencyClaim {
  caller: string;
  key: string;
  fingerprint: string;
}

/** The recipients a removal names, once checked: Slack items are gone (no Slack recipient can exist). */
export type RemovalTarget =
  | { type: 'USER'; userId: number }
  | { type: 'EMBED_USER'; embedUserId: number; embedTenantName: string };

export interface LifecycleRepository {
  find(deploymentId: number, id: number): Promise<Notification | undefined>;
  /** The integer id of a dashboard of this deployment, or undefined when it has none such. */
  dashboardIdOf(deploymentId: number, ref: DashboardRef): Promise<number | undefined>;
  /**
   * Stores a new notification under a fresh id. With a claim: a repeat of the claim answers the
   * notification it created (IdempotencyKeyMismatchError for another body, ConflictError while the
   * first is in flight).
   */
  create(draft: Omit<Notification, 'id'>, claim?: IdempotencyClaim): Promise<Notification>;
  /** Removes the notification and everything stored under it; false when there was no notification. */
  delete(deploymentId: number, id: number): Promise<boolean>;
  /** A page of at most `first` items and `maxBytes` of their JSON; a foreign cursor is a 400 naming `after`. */
  list(
    deploymentId: number,
    filter: NotificationFilter,
    window: PageWindow<Notification>,
  ): Promise<StoredPage<Notification>>;
  /** undefined when the notification does not exist. */
  listRecipients(
    notification: NotificationRef,
    window: PageWindow<RecipientOutput>,
  ): Promise<StoredPage<RecipientOutput> | undefined>;
  /** Removes those of `targets` that are subscribed; false when the notification does not exist. */
  removeRecipients(notification: NotificationRef, targets: readonly RemovalTarget[]): Promise<boolean>;
}

const notFound = (target: NotificationRef) =>
  new NotFoundError(`Notification ${target.id} of deployment ${target.deploymentId}`);

/** A new notification's values before the request's own: UTC, enabled, PNG, no lists, no summary. */
const defaults = {
  timezone: 'UTC',
  isEnabled: true,
  notificationEnabled: true,
  notificationFormat: 'png',
  filters: null,
  timeGrains: null,
  memberSwitchers: null,
  notificationAiSummary: false,
} as const;

export async function createNotification(
  repository: Pick<LifecycleRepository, 'dashboardIdOf' | 'create'>,
  deploymentId: number,
  input: CreateNotificationInput,
  settings: NotificationSettings,
  idempotency?: { caller: string; key: string },
): Promise<NotificationDto> {
  const { dashboardId, dashboardPublicId, ...fields } = input;
  // The schedule is checked by the update's own rules, before anything is read.
  const checked = applyNotificationUpdate(
    { ...defaults, id: 0, deploymentId, dashboardId: 0, scheduleType: input.scheduleType },
    fields,
    settings,
  );
  const ref: DashboardRef =
    dashboardId !== undefined ? { dashboardId } : { dashboardPublicId: dashboardPublicId as string };
  const resolvedDashboardId = await repository.dashboardIdOf(deploymentId, ref);
  if (resolvedDashboardId === undefined) {
    const name = 'dashboardId' in ref ? ref.dashboardId : ref.dashboardPublicId;
    throw new NotFoundError(`Dashboard ${name} of deployment ${deploymentId}`);
  }
  const { id: _placeholder, ...draft } = { ...checked, dashboardId: resolvedDashboardId };
  const claim = idempotency && {
    ...idempotency,
    fingerprint: createHash('sha256')
      .update(canonicalJson(input) ?? '')
      .digest('hex'),
  };
  return toNotificationDto(await repository.create(draft, claim));
}

export async function getNotification(
  repository: Pick<LifecycleRepository, 'find'>,
  target: NotificationRef,
): Promise<NotificationDto> {
  const notification = await repository.find(target.deploymentId, target.id);
  if (!notification) throw notFound(target);
  return toNotificationDto(notification);
}

export async function deleteNotification(
  repository: Pick<LifecycleRepository, 'delete'>,
  target: NotificationRef,
): Promise<void> {
  if (!(await repository.delete(target.deploymentId, target.id))) throw notFound(target);
}

function filterOf(query: ListNotificationsQuery): NotificationFilter {
  const filter: NotificationFilter = {};
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
  repository: Pick<LifecycleRepository, 'list'>,
  deploymentId: number,
  query: ListNotificationsQuery,
): Promise<Page<NotificationDto>> {
  const page = { first: query.first, after: query.after };
  const stored = await repository.list(deploymentId, filterOf(query), pageWindow(page, toNotificationDto));
  return toPage(stored, page, toNotificationDto);
}

export async function listRecipients(
  repository: Pick<LifecycleRepository, 'listRecipients'>,
  target: NotificationRef,
  page: PageRequest,
): Promise<Page<RecipientOutput>> {
  const stored = await repository.listRecipients(
    target,
    pageWindow(page, (recipient) => recipient),
  );
  if (!stored) throw notFound(target);
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
  repository: Pick<LifecycleRepository, 'removeRecipients'>,
  target: NotificationRef,
  items: readonly RemovedRecipientInput[],
): Promise<void> {
  const targets = removalTargets(items);
  if (!(await repository.removeRecipients(target, targets))) throw notFound(target);
}
