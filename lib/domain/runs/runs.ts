import { createHash } from 'node:crypto';
import type { ConsoleUser, Dashboard } from '#lib/domain/entities';
import type { IdempotentResult } from '#lib/domain/idempotency';
import type { Notification, NotificationRef } from '#lib/domain/notifications/notification';
import type {
  DashboardFilter,
  DashboardMemberSwitcher,
  DashboardTimeGrain,
  NotificationFormat,
} from '#lib/domain/notifications/notification-fields';
import type { SubscriptionNonce } from '#lib/domain/recipients/recipient-kinds';
import type { RecipientOutput } from '#lib/domain/recipients/recipients';
import type { UserAttribute } from '#lib/domain/recipients/recipients-input';
import type { StoredRecipient } from '#lib/domain/recipients/recipients-resolution';
import { suppressionKeyOf } from '#lib/domain/suppressions/suppressions';
import { IdempotencyKeyMismatchError, NotFoundError } from '#lib/errors';

/**
 * Runs and deliveries: what one firing (or one send-now) decides and records. Everything here is
 * pure; the dispatcher (lib/domain/dispatch/) and send-now (send-now.ts) drive it against storage and the job sink.
 */

export const runTriggers = ['schedule', 'manual', 'test'] as const;
export type RunTrigger = (typeof runTriggers)[number];
export const runSkipReasons = ['delivery_disabled', 'dashboard_unavailable', 'owner_inactive'] as const;
export type RunSkipReason = (typeof runSkipReasons)[number];
export const deliverySkipReasons = ['user_deactivated', 'not_shared_with_tenant', 'suppressed'] as const;
type DeliverySkipReason = (typeof deliverySkipReasons)[number];

/**
 * A run's status: `dispatching` while its deliveries are being recorded and queued (also when the
 * pass doing it died: the run stays so until a later pass takes its lease over and finishes),
 * `dispatched` once every delivery is recorded and outcomes are awaited, `completed` when every queued
 * delivery was delivered, `completed_with_failures` when every one has an outcome and some failed, or
 * `skipped` from the start.
 */
export const runStatuses = [
  'dispatching',
  'dispatched',
  'completed',
  'completed_with_failures',
  'skipped',
] as const;
export type RunStatus = (typeof runStatuses)[number];

/** Whether every queued delivery of a run with this status has its outcome. */
export const isComplete = (status: RunStatus) =>
  status === 'completed' || status === 'completed_with_failures';

export const deliveryStatuses = ['queued', 'delivered', 'failed', 'skipped'] as const;
export type DeliveryStatus = (typeof deliveryStatuses)[number];

/** A run's deliveries by status; `queued` counts every delivery ever queued (delivered and failed ones too). */
export interface RecipientCounts {
  queued: number;
  skipped: number;
  delivered: number;
  failed: number;
}

/** A run as stored and as the API shows it. */
/** A run by its identity: its notification and its run id. */
export interface RunRef extends NotificationRef {
  runId: string;
}

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
  /** When the last outcome came in (ISO-8601, ms); null until then. */
  completedAt: string | null;
}

export type RunDto = Run;

export const toRunDto = (run: Run): RunDto => run;

/**
 * The answer to a repeat of an Idempotency-Key whose request made (or retried) a run: the run as it
 * stands now, a run still `dispatching` included. Gone (its notification deleted and purged): 404.
 */
export async function runMadeByKey(
  runs: { findRun(ref: RunRef): Promise<Run | undefined> },
  done: IdempotentResult,
): Promise<RunDto> {
  // The fingerprint names the route: a key of a create cannot match one of a run.
  if (done.kind !== 'run') throw new IdempotencyKeyMismatchError();
  const run = await runs.findRun(done.run);
  if (!run) throw new NotFoundError(`Run ${done.run.runId} of notification ${done.run.id}`);
  return toRunDto(run);
}

export const noRecipients = (): RecipientCounts => ({ queued: 0, skipped: 0, delivered: 0, failed: 0 });

/**
 * Where a dispatched run stands by its counts: complete once every queued delivery has an outcome,
 * with failures if any of them failed. A run still being written or skipped keeps its status.
 */
export function settledStatus(run: Pick<Run, 'status' | 'recipients'>): RunStatus {
  if (run.status === 'dispatching' || run.status === 'skipped') return run.status;
  const { queued, delivered, failed } = run.recipients;
  if (delivered + failed < queued) return 'dispatched';
  return failed > 0 ? 'completed_with_failures' : 'completed';
}

const compact = (instant: number) => new Date(instant).toISOString().replace(/[-:.]/g, '');
/** The start of every run id made at `instant` or later: run ids sort by their instant. */
export const runIdFloor = (instant: number) => compact(instant);

/** A scheduled run's id is its instant: the one run an instant can have, whoever makes it. */
export const scheduledRunId = (instant: number) => `${compact(instant)}-s`;
/**
 * A manual run's id is its time plus randomness (`randomPart`: 8 hex digits the caller drew): every
 * send-now is a run of its own.
 */
export const manualRunId = (instant: number, randomPart: string) => `${compact(instant)}-m${randomPart}`;
/** A test send's id: as a manual run's, marked `t`. */
export const testRunId = (instant: number, randomPart: string) => `${compact(instant)}-t${randomPart}`;
const RUN_ID = String.raw`\d{8}T\d{9}Z-(?:s|[mt][0-9a-f]{8})`;
/** Run ids sort by their instant, so newest first is the key order reversed. */
export const RUN_ID_PATTERN = new RegExp(`^${RUN_ID}$`);

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
  /** The recipient row's identity within the notification (its sort key). */
  recipientKey: string;
  /** The delivery's identity within its run, derived from `recipientKey`: its key and its job id end with it. */
  deliveryId: string;
  recipient: RecipientOutput;
  status: DeliveryStatus;
  reason: DeliverySkipReason | null;
  jobId: string | null;
  /** Times the job was queued (0 when skipped); the current attempt. */
  attempts: number;
  /** The renderer's text for a failed delivery, else null. */
  error: string | null;
  updatedAt: string;
  /** The nonce of the subscription the delivery was made for, which its job's unsubscribe link names. */
  subscriptionNonce?: SubscriptionNonce;
}

export type JobRecipient = RecipientOutput & {
  securityContext?: Record<string, unknown>;
  userAttributes?: UserAttribute[];
  groups?: string[];
};

export interface DeliveryJob {
  jobId: string;
  runId: string;
  deploymentId: number;
  notificationId: number;
  scheduledFor: string;
  attempt: number;
  dashboard: { id: number; publicId: string; title: string };
  notificationFormat: NotificationFormat;
  notificationAiSummary: boolean;
  filters: DashboardFilter[] | null;
  timeGrains: DashboardTimeGrain[] | null;
  memberSwitchers: DashboardMemberSwitcher[] | null;
  recipient: JobRecipient;
  /**
   * Not part of the job the renderer receives: the subscription its unsubscribe link is bound to
   * (none for a row stored before nonces, or a test send's recipient, who may not be subscribed).
   */
  subscriptionNonce?: SubscriptionNonce;
}

/** A delivery's id: the same recipient in the same run always gets the same one. */
const deliveryIdOf = (recipientKey: string) =>
  createHash('sha256').update(recipientKey).digest('hex').slice(0, 32);

/** Where a job's delivery is stored: a job id names it whole, so a report finds it by key. */
export interface DeliveryRef {
  deploymentId: number;
  notificationId: number;
  runId: string;
  deliveryId: string;
}

/**
 * `<deploymentId>.<notificationId>.<runId>.<deliveryId>`: unique per delivery, the same on every
 * retry, so a renderer can drop a repeated job and report an outcome that finds its delivery by key.
 */
export const jobIdOf = (ref: DeliveryRef) =>
  `${ref.deploymentId}.${ref.notificationId}.${ref.runId}.${ref.deliveryId}`;

const JOB_ID_PATTERN = new RegExp(`^([1-9]\\d{0,14})\\.([1-9]\\d{0,14})\\.(${RUN_ID})\\.([0-9a-f]{32})$`);

/** The delivery a job id names, or undefined when it is no job id of this service. */
export function parseJobId(jobId: string): DeliveryRef | undefined {
  const [, deploymentId, notificationId, runId, deliveryId] = JOB_ID_PATTERN.exec(jobId) ?? [];
  // The pattern has all four groups: a match gives every one.
  if (runId === undefined || deliveryId === undefined) return undefined;
  return { deploymentId: Number(deploymentId), notificationId: Number(notificationId), runId, deliveryId };
}

/** The job of a queued delivery: the notification's fields a renderer needs are read here, in one place. */
export function jobOf(
  run: Pick<Run, 'runId' | 'deploymentId' | 'notificationId' | 'scheduledFor'>,
  delivery: Pick<Delivery, 'deliveryId' | 'attempts' | 'subscriptionNonce'>,
  notification: Notification,
  dashboard: Dashboard,
  recipient: JobRecipient,
): DeliveryJob {
  return {
    jobId: jobIdOf({ ...run, deliveryId: delivery.deliveryId }),
    runId: run.runId,
    deploymentId: run.deploymentId,
    notificationId: run.notificationId,
    scheduledFor: run.scheduledFor,
    attempt: delivery.attempts,
    dashboard: { id: dashboard.id, publicId: dashboard.publicId, title: dashboard.title },
    notificationFormat: notification.notificationFormat,
    notificationAiSummary: notification.notificationAiSummary,
    filters: notification.filters,
    timeGrains: notification.timeGrains,
    memberSwitchers: notification.memberSwitchers,
    recipient,
    ...(delivery.subscriptionNonce !== undefined && { subscriptionNonce: delivery.subscriptionNonce }),
  };
}

export interface RecipientRow {
  key: string;
  recipient: StoredRecipient;
}

/**
 * Who gets a delivery: every subscribed recipient, except a console user who is deactivated or gone,
 * an embed user whose tenant the dashboard is not shared with (directly or with all embed users), and
 * an address the deployment suppresses (`suppressed`: the keys, lib/domain/suppressions/suppressions.ts, of those
 * among the page's addresses). Whether the dashboard allows embedding plays no part: rendering is a
 * trusted platform flow.
 */
export function decideDeliveries(
  run: Run,
  notification: Notification,
  dashboard: Dashboard,
  rows: readonly RecipientRow[],
  users: ReadonlyMap<number, ConsoleUser>,
  suppressed: ReadonlySet<string>,
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
    if (!reason && output.email !== '' && suppressed.has(suppressionKeyOf(output.email)))
      reason = 'suppressed';
    const deliveryId = deliveryIdOf(key);
    const delivery: Delivery = {
      recipientKey: key,
      deliveryId,
      recipient: output,
      status: reason ? 'skipped' : 'queued',
      reason,
      jobId: reason ? null : jobIdOf({ ...run, deliveryId }),
      attempts: reason ? 0 : 1,
      error: null,
      updatedAt: run.createdAt,
      ...(recipient.subscriptionNonce !== undefined && { subscriptionNonce: recipient.subscriptionNonce }),
    };
    deliveries.push(delivery);
    if (!reason) jobs.push(jobOf(run, delivery, notification, dashboard, { ...output, ...extra }));
  }
  return { deliveries, jobs };
}

/** The counts a page of new deliveries adds to its run: queued and skipped only, no outcome yet. */
export const countDeliveries = (
  deliveries: readonly Delivery[],
): Pick<RecipientCounts, 'queued' | 'skipped'> => ({
  queued: deliveries.filter((delivery) => delivery.status === 'queued').length,
  skipped: deliveries.filter((delivery) => delivery.status === 'skipped').length,
});

export type DeliveryDto = Omit<Delivery, 'recipientKey' | 'deliveryId' | 'subscriptionNonce'>;
export const toDeliveryDto = ({
  recipientKey: _,
  deliveryId: __,
  subscriptionNonce: ___,
  ...delivery
}: Delivery): DeliveryDto => delivery;
