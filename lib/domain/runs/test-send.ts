import { auditEvent, type NewAuditEvent } from '#lib/domain/audit/audit';
import type { JobSink } from '#lib/domain/dispatch/dispatch-ports';
import type { ConsoleUser, Dashboard } from '#lib/domain/entities';
import {
  type HeldKey,
  type IdempotencyKeyInput,
  type IdempotencyKeys,
  onceForKey,
  requestFingerprint,
} from '#lib/domain/idempotency';
import {
  type Notification,
  type NotificationRef,
  notificationNotFound,
} from '#lib/domain/notifications/notification';
import {
  type ConsoleUserDirectory,
  refuseDuplicateUsers,
  resolveConsoleUsers,
} from '#lib/domain/recipients/console-user-resolution';
import type { UserRecipientInput } from '#lib/domain/recipients/recipients-input';
import {
  countDeliveries,
  type Delivery,
  decideDeliveries,
  jobOf,
  noRecipients,
  type RecipientRow,
  type Run,
  type RunDto,
  type RunRef,
  runMadeByKey,
  runSkipReason,
  testRunId,
  toRunDto,
} from '#lib/domain/runs/runs';
import { type ManualRunClaim, refusalOf, type SendNowOptions } from '#lib/domain/runs/send-now';
import type { TestRecipientInput } from '#lib/domain/runs/test-send-input';
import { recipientEmails, type SuppressionLookup } from '#lib/domain/suppressions/suppressions';

/**
 * A test send: a `test` run to a few console users named in the request, subscribed or not, and to
 * no one else. It is small enough (at most ten deliveries) to be recorded whole within the request.
 */

export interface TestSendStore extends IdempotencyKeys, SuppressionLookup {
  findNotification(ref: NotificationRef): Promise<{ notification: Notification } | undefined>;
  findRun(ref: RunRef): Promise<Run | undefined>;
  findDashboard(deploymentId: number, dashboardId: number): Promise<Dashboard | undefined>;
  /** The console users and e-mail links the items name, in one round of reads. */
  consoleUsers(userIds: readonly number[], emails: readonly string[]): Promise<ConsoleUserDirectory>;
  /** The identity a console user's recipient row has in the notification (what a delivery is keyed by). */
  userRowKey(ref: NotificationRef, userId: number): string;
  /**
   * Creates the run with its deliveries and records it as the notification's latest send-now (a test
   * send shares its limit), unless the previous one was after `previousNoLaterThan` or is still
   * dispatching; the same write marks a held key done with the run.
   */
  claimRun(
    run: Run,
    deliveries: readonly Delivery[],
    previousNoLaterThan: number,
    event: NewAuditEvent,
    held: HeldKey | undefined,
  ): Promise<ManualRunClaim>;
  /** Whether the notification still exists: the race guard with a delete (lib/store/notifications/notification-guard.ts). */
  isLive(ref: NotificationRef): Promise<boolean>;
  /** Every delivery of a test run (at most ten). */
  testRunDeliveries(ref: RunRef): Promise<Delivery[]>;
}

export async function testSend(
  store: TestSendStore,
  sink: JobSink,
  ref: NotificationRef,
  items: readonly TestRecipientInput[],
  options: Pick<SendNowOptions, 'now' | 'minIntervalMs' | 'randomHex' | 'audit'>,
  idempotency?: IdempotencyKeyInput,
): Promise<RunDto> {
  const inputs: UserRecipientInput[] = items.map((item) => ({ ...item, type: 'USER' }));
  refuseDuplicateUsers(inputs);
  const stored = await store.findNotification(ref);
  if (!stored) throw notificationNotFound(ref);
  const directory = await store.consoleUsers(
    inputs.flatMap((item) => (item.userId === undefined ? [] : [item.userId])),
    inputs.flatMap((item) => (item.email === undefined ? [] : [item.email.toLowerCase()])),
  );
  // Every item resolved before the key is claimed: a request refused for its body writes nothing.
  const users = resolveConsoleUsers(inputs, directory);
  const claim = idempotency && {
    ...idempotency,
    fingerprint: requestFingerprint({ operation: 'send', target: ref, body: { recipients: items } }),
  };
  return onceForKey(
    store,
    ref.deploymentId,
    claim,
    (held) => makeTestRun(store, sink, stored.notification, users, options, held),
    async (done) => {
      const run = await runMadeByKey(store, done);
      await sendAwaitedAgain(store, sink, run, stored.notification);
      return run;
    },
  );
}

/**
 * A repeat of a test send sends again the jobs of its deliveries still awaiting an outcome: the same
 * jobs (same ids and attempt), which the renderer takes once. A first request that died between
 * recording its run and sending its jobs (or whose answer was lost) thus still reaches its recipients;
 * a scheduled or manual run needs none of this, as its lease has the dispatcher finish it.
 */
async function sendAwaitedAgain(
  store: TestSendStore,
  sink: JobSink,
  run: Run,
  notification: Notification,
): Promise<void> {
  if (run.trigger !== 'test' || run.skipReason || run.recipients.queued === 0) return;
  const dashboard = await store.findDashboard(notification.deploymentId, notification.dashboardId);
  if (!dashboard) return;
  const ref: RunRef = { deploymentId: run.deploymentId, id: run.notificationId, runId: run.runId };
  const awaited = (await store.testRunDeliveries(ref)).filter((delivery) => delivery.status === 'queued');
  if (awaited.length === 0 || !(await store.isLive(ref))) return;
  await sink.send(
    awaited.map((delivery) => jobOf(run, delivery, notification, dashboard, delivery.recipient)),
  );
}

async function makeTestRun(
  store: TestSendStore,
  sink: JobSink,
  notification: Notification,
  users: readonly ConsoleUser[],
  options: Pick<SendNowOptions, 'now' | 'minIntervalMs' | 'randomHex' | 'audit'>,
  held: HeldKey | undefined,
): Promise<RunDto> {
  const { now } = options;
  const ref: NotificationRef = { deploymentId: notification.deploymentId, id: notification.id };
  const dashboard = await store.findDashboard(notification.deploymentId, notification.dashboardId);
  const skipReason = runSkipReason('test', notification, dashboard);
  const instant = new Date(now).toISOString();
  const run: Run = {
    runId: testRunId(now, options.randomHex(4)),
    deploymentId: ref.deploymentId,
    notificationId: ref.id,
    trigger: 'test',
    scheduledFor: instant,
    createdAt: instant,
    status: skipReason ? 'skipped' : 'dispatched',
    skipReason,
    recipients: noRecipients(),
    completedAt: null,
  };
  const claim = async (recorded: Run, deliveries: readonly Delivery[]) => {
    const event = auditEvent(options.audit, ref, 'test_sent', { runId: recorded.runId }, now);
    const claimed = await store.claimRun(recorded, deliveries, now - options.minIntervalMs, event, held);
    if (!claimed.created) throw refusalOf(claimed, ref, options);
  };
  if (skipReason || !dashboard) {
    await claim(run, []);
    return toRunDto(run);
  }
  const rows: RecipientRow[] = users.map((user) => ({
    key: store.userRowKey(ref, user.id),
    recipient: { type: 'USER', userId: user.id },
  }));
  const byId = new Map<number, ConsoleUser>(users.map((user) => [user.id, user]));
  // A suppressed address is skipped in a test send too: it bounced or complained.
  const suppressed = await store.suppressedAmong(ref.deploymentId, recipientEmails(rows, byId));
  const { deliveries, jobs } = decideDeliveries(run, notification, dashboard, rows, byId, suppressed);
  const recorded: Run = { ...run, recipients: { ...run.recipients, ...countDeliveries(deliveries) } };
  // The run is made whole (its counts and deliveries, at most ten) in the one write that decides the
  // limit: a refused test send writes nothing, and no run is ever left without its deliveries.
  await claim(recorded, deliveries);
  // Raced by a delete: no job leaves, and what was written is the purge's.
  if (!(await store.isLive(ref))) throw notificationNotFound(ref);
  await sink.send(jobs);
  return toRunDto(recorded);
}
