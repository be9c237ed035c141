import {
  type ConsoleUserDirectory,
  refuseDuplicateUsers,
  resolveConsoleUsers,
} from '#lib/domain/console-user-resolution';
import { type JobSink, type ManualRunClaim, refusalOf, type SendNowOptions } from '#lib/domain/dispatch';
import type { ConsoleUser, Dashboard } from '#lib/domain/entities';
import type { Notification, NotificationRef } from '#lib/domain/notification';
import type { UserRecipientInput } from '#lib/domain/recipients-input';
import {
  countDeliveries,
  type Delivery,
  decideDeliveries,
  noRecipients,
  type RecipientRow,
  type Run,
  type RunDto,
  runSkipReason,
  testRunId,
  toRunDto,
} from '#lib/domain/runs';
import type { TestRecipientInput } from '#lib/domain/test-send-input';
import { NotFoundError } from '#lib/errors';

/**
 * A test send: a `test` run to a few console users named in the request, subscribed or not, and to
 * no one else. It is small enough (at most ten deliveries) to be recorded whole within the request.
 */

export interface TestSendStore {
  findNotification(ref: NotificationRef): Promise<{ notification: Notification } | undefined>;
  findDashboard(deploymentId: number, dashboardId: number): Promise<Dashboard | undefined>;
  /** The console users and e-mail links the items name, in one round of reads. */
  consoleUsers(userIds: readonly number[], emails: readonly string[]): Promise<ConsoleUserDirectory>;
  /** The identity a console user's recipient row has in the notification (what a delivery is keyed by). */
  userRowKey(ref: NotificationRef, userId: number): string;
  putDeliveries(run: Run, deliveries: readonly Delivery[]): Promise<void>;
  /**
   * Creates the run and records it as the notification's latest send-now (a test send shares its
   * limit), unless the previous one was after `previousNoLaterThan` or is still dispatching.
   */
  claimRun(run: Run, previousNoLaterThan: number): Promise<ManualRunClaim>;
  /** Whether the notification still exists: the race guard with a delete (lib/store/notification-guard.ts). */
  isLive(ref: NotificationRef): Promise<boolean>;
}

export async function testSend(
  store: TestSendStore,
  sink: JobSink,
  ref: NotificationRef,
  items: readonly TestRecipientInput[],
  options: Pick<SendNowOptions, 'now' | 'minIntervalMs' | 'randomHex'>,
): Promise<RunDto> {
  const { now } = options;
  const inputs: UserRecipientInput[] = items.map((item) => ({ ...item, type: 'USER' }));
  refuseDuplicateUsers(inputs);
  const stored = await store.findNotification(ref);
  if (!stored) throw new NotFoundError(`Notification ${ref.id} of deployment ${ref.deploymentId}`);
  const directory = await store.consoleUsers(
    inputs.flatMap((item) => (item.userId === undefined ? [] : [item.userId])),
    inputs.flatMap((item) => (item.email === undefined ? [] : [item.email.toLowerCase()])),
  );
  const users = resolveConsoleUsers(inputs, directory);
  const { notification } = stored;
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
  const claim = async (recorded: Run) => {
    const claimed = await store.claimRun(recorded, now - options.minIntervalMs);
    if (!claimed.created) throw refusalOf(claimed, ref, options);
  };
  if (skipReason || !dashboard) {
    await claim(run);
    return toRunDto(run);
  }
  const rows: RecipientRow[] = users.map((user) => ({
    key: store.userRowKey(ref, user.id),
    recipient: { type: 'USER', userId: user.id },
  }));
  const byId = new Map<number, ConsoleUser>(users.map((user) => [user.id, user]));
  const { deliveries, jobs } = decideDeliveries(run, notification, dashboard, rows, byId);
  const recorded: Run = { ...run, recipients: { ...run.recipients, ...countDeliveries(deliveries) } };
  // The run is made whole (its counts decided) and claimed first: a refused test send writes nothing.
  await claim(recorded);
  await store.putDeliveries(recorded, deliveries);
  // Raced by a delete: no job leaves, and what was written is the purge's.
  if (!(await store.isLive(ref)))
    throw new NotFoundError(`Notification ${ref.id} of deployment ${ref.deploymentId}`);
  await sink.send(jobs);
  return toRunDto(recorded);
}
