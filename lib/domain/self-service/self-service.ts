import type { ChangeContext } from '#lib/domain/audit/audit';
import { deleteNotification, type NotificationDeletion } from '#lib/domain/deletion/delete-notification';
import type { EmbedUser } from '#lib/domain/entities';
import {
  type NotificationDto,
  type NotificationOwner,
  type NotificationRef,
  type ScheduledNotification,
  toNotificationDto,
} from '#lib/domain/notifications/notification';
import type { UpdateNotificationInput } from '#lib/domain/notifications/notification-fields';
import type { Page, PageRequest, PageWindow, StoredPage } from '#lib/domain/paging';
import { pageWindow, toPage } from '#lib/domain/paging';
import type { Principal } from '#lib/domain/principal';
import type { RecipientProperties } from '#lib/domain/recipients/recipients-input';
import type { ScheduleType } from '#lib/domain/schedules/schedule-fields';
import { ForbiddenError, NotFoundError } from '#lib/errors';

/**
 * Self-service subscriptions: an embed user, with their embed token alone, subscribes themselves to
 * a dashboard they may embed. A subscription is an ordinary notification of the dashboard's
 * deployment, owned by the embed user, whose only recipient is that user. The tenant allows it and
 * bounds it (docs/self-service.md); the rules are here, the writes that need the cron code in
 * lib/domain/self-service/self-service-writes.ts.
 */

export interface SelfServiceSettings {
  enabled: boolean;
  /** Subscriptions one embed user may hold at once. */
  maxPerUser: number;
  /** The shortest time between two consecutive firings of a subscription's schedule. */
  minIntervalMinutes: number;
}

export const selfServiceBounds = {
  maxPerUser: { min: 1, max: 50, default: 5 },
  minIntervalMinutes: { min: 15, max: 10_080, default: 60 },
} as const;

/** A tenant that never set anything: off, with the default limits. */
export const selfServiceDefaults: SelfServiceSettings = {
  enabled: false,
  maxPerUser: selfServiceBounds.maxPerUser.default,
  minIntervalMinutes: selfServiceBounds.minIntervalMinutes.default,
};

export interface TenantSelfServiceInput {
  selfService: Partial<SelfServiceSettings> & { enabled: boolean };
}

export interface TenantSelfServiceDto {
  embedTenantName: string;
  selfService: SelfServiceSettings;
}

/** The tenant's self-service settings. */
export interface SelfServiceTenants {
  /** undefined when no such tenant is registered. */
  settingsOf(tenant: string): Promise<SelfServiceSettings | undefined>;
  /** Sets the supplied settings, keeping the others, and returns them all; undefined when no such tenant. */
  configure(
    tenant: string,
    changes: TenantSelfServiceInput['selfService'],
  ): Promise<SelfServiceSettings | undefined>;
}

/** PATCH /v1/embed/tenants/{embedTenantName}. */
export async function configureSelfService(
  tenants: SelfServiceTenants,
  embedTenantName: string,
  input: TenantSelfServiceInput,
): Promise<TenantSelfServiceDto> {
  const selfService = await tenants.configure(embedTenantName, input.selfService);
  if (!selfService) throw new NotFoundError(`Embed tenant ${embedTenantName}`);
  return { embedTenantName, selfService };
}

/** The embed user calling, as their verified token describes them (checked by the HTTP layer). */
export interface Subscriber {
  principal: Principal & { kind: 'embed' };
  /** The token's `email`, else its `sub` when that is an e-mail. */
  email: string;
  properties: RecipientProperties;
}

/** A subscription's schedule and format: what the embed user may set. */
export interface SubscriptionFields
  extends Pick<
    UpdateNotificationInput,
    | 'minute'
    | 'hour'
    | 'dayOfWeek'
    | 'dayOfMonth'
    | 'customCron'
    | 'timezone'
    | 'notificationFormat'
    | 'filters'
    | 'timeGrains'
  > {
  scheduleType?: ScheduleType | null;
}

export interface CreateSubscriptionInput extends SubscriptionFields {
  dashboardPublicId: string;
  scheduleType: ScheduleType;
}

/** The owner a subscription of this embed user carries. */
export const ownerOf = (user: EmbedUser): NotificationOwner => ({
  type: 'EMBED_USER',
  embedTenantName: user.embedTenantName,
  externalId: user.externalId,
  embedUserId: user.embedUserId,
});

/** Where an embed user's subscriptions are found: the per-user list kept beside their count. */
export interface SubscriptionDirectory {
  /** The deployment of the caller's subscription `id`, or undefined when they hold none such. */
  deploymentOf(tenant: string, externalId: string, id: number): Promise<number | undefined>;
  find(deploymentId: number, id: number): Promise<ScheduledNotification | undefined>;
  /** A page of the caller's subscriptions, newest first. */
  list(
    tenant: string,
    externalId: string,
    window: PageWindow<ScheduledNotification>,
  ): Promise<StoredPage<ScheduledNotification>>;
}

const ownedBy = (owner: NotificationOwner | null, principal: Subscriber['principal']) =>
  owner?.type === 'EMBED_USER' &&
  owner.embedTenantName === principal.tenant &&
  owner.externalId.trim().toLowerCase() === principal.externalId.trim().toLowerCase();

/** Another user's notification, an admin's one and an unknown id all answer the same 404. */
const notYours = (id: number) => new NotFoundError(`Notification ${id}`);

/** The caller's own subscription `id`, as stored, or 404. */
export async function ownSubscription(
  directory: SubscriptionDirectory,
  principal: Subscriber['principal'],
  id: number,
): Promise<ScheduledNotification> {
  const deploymentId = await directory.deploymentOf(principal.tenant, principal.externalId, id);
  if (deploymentId === undefined) throw notYours(id);
  const stored = await directory.find(deploymentId, id);
  if (!stored || !ownedBy(stored.notification.owner, principal)) throw notYours(id);
  return stored;
}

export const refOf = ({ notification }: ScheduledNotification): NotificationRef => ({
  deploymentId: notification.deploymentId,
  id: notification.id,
});

/** Self-service must be on for the caller's tenant to subscribe or change a subscription. */
export async function requireSelfService(
  tenants: Pick<SelfServiceTenants, 'settingsOf'>,
  principal: Subscriber['principal'],
): Promise<SelfServiceSettings> {
  const settings = await tenants.settingsOf(principal.tenant);
  if (!settings?.enabled)
    throw new ForbiddenError('Self-service subscriptions are not enabled for this embed tenant');
  return settings;
}

/** GET /v1/embed/notifications/{id}. */
export async function getSubscription(
  directory: SubscriptionDirectory,
  principal: Subscriber['principal'],
  id: number,
  now: number,
): Promise<NotificationDto> {
  return toNotificationDto(await ownSubscription(directory, principal, id), now);
}

/** GET /v1/embed/notifications: the caller's own, newest first. */
export async function listSubscriptions(
  directory: SubscriptionDirectory,
  principal: Subscriber['principal'],
  request: PageRequest,
  now: number,
): Promise<Page<NotificationDto>> {
  const toDto = (stored: ScheduledNotification) => toNotificationDto(stored, now);
  const stored = await directory.list(principal.tenant, principal.externalId, pageWindow(request, toDto));
  return toPage(stored, request, toDto);
}

/** DELETE /v1/embed/notifications/{id}: the delete of every notification, which also gives back the count. */
export async function deleteSubscription(
  directory: SubscriptionDirectory,
  deletion: NotificationDeletion,
  principal: Subscriber['principal'],
  id: number,
  context: ChangeContext,
): Promise<void> {
  const subscription = await ownSubscription(directory, principal, id);
  // Its owner as read: the delete names it at once, and gives back their count in its one transaction.
  await deleteNotification(deletion, refOf(subscription), context, subscription.notification.owner);
}
