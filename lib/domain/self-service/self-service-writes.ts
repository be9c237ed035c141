import type { AuditContext } from '#lib/domain/audit/audit';
import { type DashboardLookup, getEmbeddedDashboard } from '#lib/domain/embedding/embedding';
import type { EmbedUser } from '#lib/domain/entities';
import type { IdempotencyKeyInput } from '#lib/domain/idempotency';
import type {
  Notification,
  NotificationDto,
  NotificationOwner,
  NotificationSettings,
} from '#lib/domain/notifications/notification';
import type { NotificationCreation } from '#lib/domain/notifications/notification-lifecycle';
import {
  applyNotificationUpdate,
  createNotification,
  type NotificationUpdate,
  newNotification,
  type UpdateTiming,
  updateNotification,
} from '#lib/domain/notifications/notification-writes';
import { type AddRecipientsStore, addRecipients } from '#lib/domain/recipients/recipients';
import type { EmbedRecipientInput } from '#lib/domain/recipients/recipients-input';
import { customCronProblem } from '#lib/domain/schedules/cron';
import { clockChangesBetween, firingsAfter } from '#lib/domain/schedules/firing-instants';
import { cronExpressionOf } from '#lib/domain/schedules/schedule';
import {
  type CreateSubscriptionInput,
  ownerOf,
  ownSubscription,
  refOf,
  requireSelfService,
  type SelfServiceTenants,
  type Subscriber,
  type SubscriptionDirectory,
  type SubscriptionFields,
} from '#lib/domain/self-service/self-service';
import { ValidationError } from '#lib/errors';

const MINUTE_MS = 60_000;
const DAY_MS = 24 * 60 * MINUTE_MS;
/** A year and a day ahead: every clock change a zone makes in a year is looked at. */
const TRANSITION_HORIZON_DAYS = 367;

/**
 * The instants, within a year ahead of `from`, around which the zone's clock changes (to the day): the
 * start of each day, counted from `from`, in which a change falls.
 */
function clockChangeDays(timezone: string, from: number): number[] {
  const changes = clockChangesBetween(timezone, from, from + TRANSITION_HORIZON_DAYS * DAY_MS);
  return changes.map((change) => from + (Math.ceil((change - from) / DAY_MS) - 1) * DAY_MS);
}

/**
 * The shortest time between two consecutive firings of a schedule, if shorter than `minMinutes`. The
 * wall-clock rule of custom crons covers an ordinary day; a clock going forward can bring two firings
 * closer than their wall-clock times say (01:50 and 03:05 are 15 minutes apart on the night the clock
 * jumps from 02:00 to 03:00), so the firings around each of the zone's clock changes in the coming
 * year are looked at as instants.
 */
function scheduleIntervalProblem(
  notification: Notification,
  minMinutes: number,
  now: number,
): string | undefined {
  const wallClock = customCronProblem(cronExpressionOf(notification), minMinutes);
  if (wallClock) return wallClock;
  const minMs = minMinutes * MINUTE_MS;
  for (const day of clockChangeDays(notification.timezone, now)) {
    // A firing pair that straddles the change starts at most `minMs` before the day it falls in.
    const end = day + 2 * DAY_MS + minMs;
    let previous: number | undefined;
    for (const instant of firingsAfter(notification, day - minMs - DAY_MS)) {
      if (previous !== undefined && instant - previous < minMs) {
        const gap = Math.round((instant - previous) / MINUTE_MS);
        return `fires twice within ${gap} minutes across a clock change; firings must be at least ${minMinutes} minutes apart`;
      }
      if (instant > end) break;
      previous = instant;
    }
  }
  return undefined;
}

function refuseFrequentSchedule(notification: Notification, minMinutes: number, now: number): void {
  const problem = scheduleIntervalProblem(notification, minMinutes, now);
  if (!problem) return;
  const path = notification.scheduleType === 'CUSTOM' ? 'customCron' : 'scheduleType';
  throw new ValidationError([{ path, message: problem }]);
}

/** The subscriber as their one recipient: the token's e-mail and properties, refreshed on every write. */
const recipientOf = (subscriber: Subscriber): EmbedRecipientInput => ({
  type: 'EMBED_USER',
  embedTenantName: subscriber.principal.tenant,
  externalId: subscriber.principal.externalId,
  email: subscriber.email,
  ...subscriber.properties,
});

/** What a create writes and reads, beyond the notification itself. */
export interface SubscriptionCreation {
  tenants: Pick<SelfServiceTenants, 'settingsOf'>;
  dashboards: DashboardLookup;
  /** The embed user of the tenant and externalId, created with `email` (and a new id) if new. */
  embedUser(tenant: string, externalId: string, email: string): Promise<EmbedUser>;
  /**
   * The notification's create, which also counts it against the owner's `maxPerUser` and lists it
   * among theirs in the same transaction (409 past the limit).
   */
  notifications(owner: NotificationOwner, maxPerUser: number): NotificationCreation;
  recipients: AddRecipientsStore;
}

/** POST /v1/embed/notifications. */
export async function createSubscription(
  store: SubscriptionCreation,
  subscriber: Subscriber,
  input: CreateSubscriptionInput,
  settings: NotificationSettings,
  now: number,
  audit: AuditContext,
  idempotency?: IdempotencyKeyInput,
): Promise<NotificationDto> {
  const { principal } = subscriber;
  const limits = await requireSelfService(store.tenants, principal);
  const { dashboardPublicId, ...fields } = input;
  const draft = applyNotificationUpdate(newNotification(0, input.scheduleType), fields, settings);
  refuseFrequentSchedule(draft, limits.minIntervalMinutes, now);
  // The embed read's own rule: 404 unless shared with the tenant, 403 unless embedding is allowed.
  const dashboard = await getEmbeddedDashboard(store.dashboards, principal, dashboardPublicId);
  const user = await store.embedUser(principal.tenant, principal.externalId, subscriber.email);
  const owner = ownerOf(user);
  const created = await createNotification(
    store.notifications(owner, limits.maxPerUser),
    dashboard.deploymentId,
    { ...fields, dashboardId: dashboard.dashboardId },
    settings,
    now,
    owner,
    audit,
    idempotency,
  );
  // Also on a repeat of the key: it completes a first request that failed before its recipient.
  await addRecipients(store.recipients, created, [recipientOf(subscriber)]);
  return created;
}

export interface SubscriptionUpdate {
  tenants: Pick<SelfServiceTenants, 'settingsOf'>;
  directory: SubscriptionDirectory;
  notifications: NotificationUpdate;
  recipients: AddRecipientsStore;
}

/** PUT /v1/embed/notifications/{id}: the schedule and format, and the recipient refreshed from the token. */
export async function updateSubscription(
  store: SubscriptionUpdate,
  subscriber: Subscriber,
  id: number,
  input: SubscriptionFields,
  settings: NotificationSettings,
  timing: UpdateTiming,
  audit: AuditContext,
): Promise<NotificationDto> {
  const limits = await requireSelfService(store.tenants, subscriber.principal);
  const stored = await ownSubscription(store.directory, subscriber.principal, id);
  refuseFrequentSchedule(
    applyNotificationUpdate(stored.notification, input, settings),
    limits.minIntervalMinutes,
    timing.now,
  );
  const ref = refOf(stored);
  const updated = await updateNotification(store.notifications, ref, input, settings, timing, audit);
  await addRecipients(store.recipients, ref, [recipientOf(subscriber)]);
  return updated;
}
