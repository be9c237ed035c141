import { createHash, randomBytes } from 'node:crypto';
import type { ConsoleUser, Dashboard } from '#lib/domain/entities';
import type { Notification } from '#lib/domain/notification';
import type {
  DashboardFilter,
  DashboardMemberSwitcher,
  DashboardTimeGrain,
  NotificationFormat,
} from '#lib/domain/notification-fields';
import type { RecipientOutput } from '#lib/domain/recipients';
import type { UserAttribute } from '#lib/domain/recipients-input';
import type { StoredRecipient } from '#lib/domain/recipients-resolution';

/**
 * Runs and deliveries: what one firing (or one send-now) decides and records. Everything here is
 * pure; lib/domain/dispatch.ts drives it against storage and the job sink.
 */

export type RunTrigger = 'schedule' | 'manual';
export type RunSkipReason = 'delivery_disabled' | 'dashboard_unavailable';
type DeliverySkipReason = 'user_deactivated' | 'not_shared_with_tenant';

export interface RecipientCounts {
  queued: number;
  skipped: number;
}

/**
 * A run's status: `dispatching` while its deliveries are being recorded and queued (also when the
 * pass doing it died: the run stays so until a later pass takes its lease over and finishes),
 * `dispatched` once every delivery is recorded, or `skipped` from the start.
 */
export const runStatuses = ['dispatching', 'dispatched', 'skipped'] as const;
export type RunStatus = (typeof runStatuses)[number];

/** A run as stored and as the API shows it. */
export interface Run {
  runId: string;
  deploymentId: number;
  notificationId: number;
  trigger: RunTrigger;
  /** The firing instant, or the request's time for send-now (ISO-8601, ms). */
  scheduledFor: string;
  createdAt: string;
  status: RunStatus;
  skipReason: RunSkipReason | null;
  recipients: RecipientCounts;
}

export type RunDto = Run;

export const toRunDto = (run: Run): RunDto => run;

const compact = (instant: number) => new Date(instant).toISOString().replace(/[-:.]/g, '');
/** The start of every run id made at `instant` or later: run ids sort by their instant. */
export const runIdFloor = (instant: number) => compact(instant);

/** A scheduled run's id is its instant: the one run an instant can have, whoever makes it. */
export const scheduledRunId = (instant: number) => `${compact(instant)}-s`;
/** A manual run's id is its time plus randomness: every send-now is a run of its own. */
export const manualRunId = (instant: number) => `${compact(instant)}-m${randomBytes(4).toString('hex')}`;
/** Run ids sort by their instant, so newest first is the key order reversed. */
export const RUN_ID_PATTERN = /^\d{8}T\d{9}Z-(s|m[0-9a-f]{8})$/;

/** The run-level decision: a run that cannot deliver anything is recorded as skipped and queues nothing. */
export function runSkipReason(
  trigger: RunTrigger,
  notification: Notification,
  dashboard: Dashboard | undefined,
): RunSkipReason | null {
  if (!dashboard?.published) return 'dashboard_unavailable';
  if (trigger === 'schedule' && !notification.notificationEnabled) return 'delivery_disabled';
  return null;
}

export interface Delivery {
  /** The recipient row's identity within the notification (its sort key): the delivery's key. */
  recipientKey: string;
  recipient: RecipientOutput;
  status: 'queued' | 'skipped';
  reason: DeliverySkipReason | null;
  jobId: string | null;
}

export interface DeliveryJob {
  jobId: string;
  runId: string;
  deploymentId: number;
  notificationId: number;
  scheduledFor: string;
  dashboard: { id: number; publicId: string };
  notificationFormat: NotificationFormat;
  notificationAiSummary: boolean;
  filters: DashboardFilter[] | null;
  timeGrains: DashboardTimeGrain[] | null;
  memberSwitchers: DashboardMemberSwitcher[] | null;
  recipient: RecipientOutput & {
    securityContext?: Record<string, unknown>;
    userAttributes?: UserAttribute[];
    groups?: string[];
  };
}

/** The same delivery always gets the same job id, so a renderer can drop a repeated job. */
const jobIdOf = (run: Pick<Run, 'deploymentId' | 'notificationId' | 'runId'>, recipientKey: string) =>
  createHash('sha256')
    .update(`${run.deploymentId}\u0000${run.notificationId}\u0000${run.runId}\u0000${recipientKey}`)
    .digest('hex')
    .slice(0, 32);

export interface RecipientRow {
  key: string;
  recipient: StoredRecipient;
}

/**
 * Who gets a delivery: every subscribed recipient, except a console user who is deactivated or gone,
 * and an embed user whose tenant the dashboard is not shared with (directly or with all embed users).
 * Whether the dashboard allows embedding plays no part: rendering is a trusted platform flow.
 */
export function decideDeliveries(
  run: Run,
  notification: Notification,
  dashboard: Dashboard,
  rows: readonly RecipientRow[],
  users: ReadonlyMap<number, ConsoleUser>,
): { deliveries: Delivery[]; jobs: DeliveryJob[] } {
  const deliveries: Delivery[] = [];
  const jobs: DeliveryJob[] = [];
  const sharedTenants = new Set(dashboard.sharedWithTenants);
  for (const { key, recipient } of rows) {
    let output: RecipientOutput;
    let reason: DeliverySkipReason | null = null;
    let extra: Pick<DeliveryJob['recipient'], 'securityContext' | 'userAttributes' | 'groups'> = {};
    if (recipient.type === 'USER') {
      const user = users.get(recipient.userId);
      // A deleted user has no e-mail or name left to show; the row keeps only the id.
      output = {
        type: 'USER',
        userId: recipient.userId,
        email: user?.email ?? '',
        username: user?.username ?? '',
      };
      if (!user?.active) reason = 'user_deactivated';
    } else {
      output = {
        type: 'EMBED_USER',
        embedTenantName: recipient.embedTenantName,
        externalId: recipient.externalId,
        embedUserId: recipient.embedUserId,
        email: recipient.email,
      };
      if (!dashboard.sharedWithAllEmbedUsers && !sharedTenants.has(recipient.embedTenantName))
        reason = 'not_shared_with_tenant';
      extra = recipient.properties;
    }
    const jobId = reason ? null : jobIdOf(run, key);
    deliveries.push({
      recipientKey: key,
      recipient: output,
      status: reason ? 'skipped' : 'queued',
      reason,
      jobId,
    });
    if (jobId) {
      jobs.push({
        jobId,
        runId: run.runId,
        deploymentId: run.deploymentId,
        notificationId: run.notificationId,
        scheduledFor: run.scheduledFor,
        dashboard: { id: dashboard.id, publicId: dashboard.publicId },
        notificationFormat: notification.notificationFormat,
        notificationAiSummary: notification.notificationAiSummary,
        filters: notification.filters,
        timeGrains: notification.timeGrains,
        memberSwitchers: notification.memberSwitchers,
        recipient: { ...output, ...extra },
      });
    }
  }
  return { deliveries, jobs };
}

export const countDeliveries = (deliveries: readonly Delivery[]): RecipientCounts => ({
  queued: deliveries.filter((delivery) => delivery.status === 'queued').length,
  skipped: deliveries.filter((delivery) => delivery.status === 'skipped').length,
});

export type DeliveryDto = Omit<Delivery, 'recipientKey'>;
export const toDeliveryDto = ({ recipientKey: _, ...delivery }: Delivery): DeliveryDto => delivery;
