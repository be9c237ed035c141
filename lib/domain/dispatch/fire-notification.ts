import type { DueEntry, Lease, RecipientsPage } from '#lib/domain/dispatch/dispatch-ports';
import { decideEntry, type EntryDecision, planRun } from '#lib/domain/dispatch/fire-decision';
import {
  consoleUserIds,
  consoleUsers,
  DEFAULT_PAGE_SIZE,
  decidePage,
  deliver,
  leaseFrom,
  newRun,
} from '#lib/domain/dispatch/page-delivery';
import { dashboardOf, type PassContext } from '#lib/domain/dispatch/pass-context';
import type { Dashboard } from '#lib/domain/entities';
import type { Notification, NotificationRef } from '#lib/domain/notifications/notification';
import {
  countDeliveries,
  type Delivery,
  type DeliveryJob,
  type RecipientRow,
  type Run,
  type RunRef,
  scheduledRunId,
} from '#lib/domain/runs/runs';
import type { SchedulePlanner } from '#lib/domain/schedules/schedule-planning';
import type { WebhookEvent } from '#lib/domain/webhooks/messages';
import { runEvent } from '#lib/domain/webhooks/run-events';

/** A claimed run that delivers: the run, its lease, what it delivers and, when known, its deliveries. */
interface ClaimedRun {
  run: Run;
  lease: Lease;
  notification: Notification;
  dashboard: Dashboard;
  /** A small run's deliveries, written with the claim; undefined when its pages are still to deliver. */
  decided: { deliveries: Delivery[]; jobs: DeliveryJob[] } | undefined;
}

/** Steps 1 to 4 for one due notification: read, decide, claim, deliver. */
export async function fireNotification(
  context: PassContext,
  planner: SchedulePlanner,
  entry: DueEntry & { kind: 'notification' },
): Promise<void> {
  const { store, options } = context;
  const ref = { deploymentId: entry.deploymentId, id: entry.notificationId };
  const due = await store.dueNotification(ref, options.pageSize ?? DEFAULT_PAGE_SIZE);
  const decision = decideEntry(entry, due, planner, options);
  if (decision.action === 'none') return;
  if (decision.action === 'move') {
    const moved = await store.moveEntry(ref, decision.move);
    if (moved && decision.because === 'missed') context.summary.missed += 1;
    return;
  }
  const claimed = await claim(context, ref, decision, due.firstPage);
  if (claimed) await deliverClaimed(context, ref, claimed);
}

/**
 * Step 2: the instant's run, made in one transaction with the entry's move (and, for a small run,
 * its deliveries); the run when it is ours and has recipients to deliver to.
 */
async function claim(
  context: PassContext,
  ref: NotificationRef,
  { notification, instant, move }: EntryDecision & { action: 'fire' },
  firstPage: RecipientsPage,
): Promise<ClaimedRun | undefined> {
  const { store } = context;
  // The owner is read with the first page's console users, in the one read the fire makes of them.
  const [dashboard, ownerActive] = await Promise.all([
    dashboardOf(context, notification.deploymentId, notification.dashboardId),
    ownerIsActive(context, notification, firstPage.rows),
  ]);
  const plan = planRun(notification, dashboard, ownerActive, firstPage);
  const run = newRun(ref, 'schedule', scheduledRunId(instant), instant, context.clock.now(), plan.skipReason);
  const lease = plan.skipReason ? undefined : leaseFrom(context);
  const decided =
    plan.deliveriesInClaim && lease && dashboard
      ? await decidePage(context, run, notification, dashboard, firstPage.rows)
      : undefined;
  const skipEvent = plan.skipReason ? await skippedRunEvent(context, run) : undefined;
  const claimed = await store.claimInstant(run, lease, move, decided?.deliveries ?? [], skipEvent);
  // A run made for this instant whose entry stayed behind (by an older version): only the move is left.
  if (claimed === 'run-exists') await store.moveEntry(ref, move);
  if (claimed !== 'claimed') return undefined;
  context.summary.fired += 1;
  context.summary.runs.push(run);
  if (!lease || !dashboard) return undefined;
  return { run, lease, notification, dashboard, decided };
}

/** A skipped run's `run.skipped` webhook message, when the pass records them. */
async function skippedRunEvent(context: PassContext, run: Run): Promise<WebhookEvent | undefined> {
  const { events, now } = context.options;
  if (!events) return undefined;
  return runEvent(
    run,
    await events.subscribedTypes(run.deploymentId),
    events.newEventId(now),
    context.clock.now(),
  );
}

/** Steps 3 and 4: a small run's jobs sent and the run finished, or its pages delivered. */
async function deliverClaimed(
  context: PassContext,
  ref: NotificationRef,
  { run, lease, notification, dashboard, decided }: ClaimedRun,
): Promise<void> {
  if (!decided) {
    await deliver(context, { run, cursor: undefined }, lease, notification, dashboard);
    return;
  }
  if (decided.jobs.length > 0) await context.sink.send(decided.jobs);
  const counts = countDeliveries(decided.deliveries);
  const runRef: RunRef = { ...ref, runId: run.runId };
  if (!(await context.store.finishRun(runRef, lease, counts))) return;
  context.summary.queued += counts.queued;
  context.summary.skipped += counts.skipped;
}

/**
 * Whether the notification's owner is not a console user who is no longer active, reading the owner
 * together with the console users among `rows` (which `decidePage` then finds read).
 */
async function ownerIsActive(
  context: PassContext,
  notification: Notification,
  rows: readonly RecipientRow[],
): Promise<boolean> {
  const { owner } = notification;
  if (owner?.type !== 'USER') return true;
  const users = await consoleUsers(context, [owner.userId, ...consoleUserIds(rows)]);
  return users.get(owner.userId)?.active === true;
}
