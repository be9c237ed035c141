import { type Deadline, hasTimeFor, NO_DEADLINE } from '#lib/deadline';
import { type AuditContext, auditEvent, type NewAuditEvent } from '#lib/domain/audit/audit';
import { type Clock, type RandomHex, stoppedClock } from '#lib/domain/clock';
import {
  CONTINUATION_START_SECONDS,
  type DueSlice,
  type MeasuredPace,
  planHandOn,
} from '#lib/domain/dispatch/dispatch-fanout';
import type { ConsoleUser, Dashboard } from '#lib/domain/entities';
import { ORPHANED_REASON, resumesAt } from '#lib/domain/governance/governance';
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
  countDeliveries,
  type Delivery,
  type DeliveryJob,
  decideDeliveries,
  manualRunId,
  noRecipients,
  type RecipientCounts,
  type RecipientRow,
  type Run,
  type RunDto,
  type RunRef,
  type RunTrigger,
  runMadeByKey,
  runSkipReason,
  scheduledRunId,
  toRunDto,
} from '#lib/domain/runs/runs';
import { type ScheduleState, scheduleSignature } from '#lib/domain/schedules/schedule';
import type { SchedulePlanner } from '#lib/domain/schedules/schedule-planning';
import { recipientEmails, type SuppressionLookup } from '#lib/domain/suppressions/suppressions';
import type { WebhookEvent } from '#lib/domain/webhooks/messages';
import type { EventRecorder } from '#lib/domain/webhooks/recording';
import { runEvent } from '#lib/domain/webhooks/run-events';
import { TooManyRequestsError } from '#lib/errors';
import { PASS_STEP_RESERVE_MS } from '#lib/timeouts';

/**
 * The dispatcher. A pass reads the due index (schedule entries whose first instant has come, runs
 * whose lease has ended) and, for each notification:
 *
 *   1. read: the notification, its schedule entry and its first page of recipients, in one read;
 *   2. claim: in one transaction, create the run of the instant (keyed by the instant, only if it
 *      does not exist) and move the schedule entry on to its next instants (only from the entry
 *      read), with the deliveries of a run that fits in one small page;
 *   3. deliver: hand those deliveries' jobs to the sink, or page through the recipients (per page
 *      write the deliveries, hand their jobs to the sink, record the page as done, only while holding
 *      the run's lease);
 *   4. finish: mark the run dispatched and take it out of the index.
 *
 * Every step is safe to repeat and a crash after any of them is completed by a later pass: a claimed
 * run sits in the index under its lease's end until it is finished, and step 2 refuses a second run
 * for the same instant whoever tries. See docs/scheduling.md for the argument. The cron code comes in
 * as a SchedulePlanner, so that send-now, which shares this module, does not bundle it.
 */

export interface Lease {
  owner: string;
  until: number;
}

export type DueEntry = (
  | { kind: 'notification'; deploymentId: number; notificationId: number; dueKey: string; dueAt: number }
  /** A notification item's mark: its schedule was written at `dueAt`, and its state may be left to store. */
  | { kind: 'change'; deploymentId: number; notificationId: number; dueKey: string; dueAt: number }
  | { kind: 'run'; deploymentId: number; notificationId: number; runId: string; dueKey: string }
) & {
  /** The due-index shard it was read from. */
  shard?: number;
};

interface StoredNotification {
  notification: Notification;
  /** Its schedule entry's key in the due index; undefined while nothing is upcoming. */
  dueKey: string | undefined;
}

/** A schedule entry as a pass read it: the key it was due under and the schedule version it follows. */
interface EntryRead {
  dueKey: string;
  scheduleVersion: number;
}

/** Moves a schedule entry from what was read to these upcoming instants (out of the index when none). */
export interface EntryMove extends EntryRead {
  upcoming: readonly number[];
}

/** What a due notification's first read finds (step 1). */
interface DueNotification {
  /** Undefined when the notification is gone and only its entry is left. */
  notification: { value: Notification; scheduleVersion: number; changeKey: string | undefined } | undefined;
  /** Its schedule entry; undefined when it has none (yet). */
  schedule: { upcoming: readonly number[]; scheduleVersion: number; dueKey: string | undefined } | undefined;
  firstPage: { rows: RecipientRow[]; last: string | undefined };
}

export interface RunProgress {
  run: Run;
  /** The last recipient row already delivered; undefined before the first page. */
  cursor: string | undefined;
}

/** What became of a send-now's run: made, or refused by the send-now limit, or the notification is gone. */
export type ManualRunClaim =
  | { created: true }
  | { created: false; reason: 'too_soon'; previousAt: number }
  | { created: false; reason: 'dispatching' }
  | { created: false; reason: 'gone' };

/**
 * What delivering a run's recipients page by page needs, under the run's lease: shared by a
 * dispatcher pass and a send-now.
 */
export interface RunDeliveryStore {
  recipientsPage(
    ref: NotificationRef,
    after: string | undefined,
    limit: number,
  ): Promise<{ rows: RecipientRow[]; last: string | undefined }>;
  users(ids: readonly number[]): Promise<Map<number, ConsoleUser>>;
  /** Which of a page's addresses the deployment suppresses: one read per page, whatever their number. */
  suppressedAmong: SuppressionLookup['suppressedAmong'];
  putDeliveries(run: Run, deliveries: readonly Delivery[]): Promise<void>;
  /** Records a delivered page, renewing the lease; false when the lease is no longer ours. */
  saveProgress(
    ref: RunRef,
    lease: Lease,
    cursor: string,
    counts: RecipientCounts,
    renewed: number,
  ): Promise<boolean>;
  /** Marks the run dispatched with its counts and takes it out of the index; false when the lease is no longer ours. */
  finishRun(ref: RunRef, lease: Lease, counts: Pick<RecipientCounts, 'queued' | 'skipped'>): Promise<boolean>;
  /** Ends the lease now, so the next pass resumes the run at once. */
  releaseLease(ref: RunRef, lease: Lease, now: number): Promise<void>;
  /** Whether the notification still exists (a strongly consistent read): lib/store/notifications/notification-guard.ts. */
  notificationIsLive(ref: NotificationRef): Promise<boolean>;
}

/** A dispatcher pass's storage: the due index and its entries, and a run's deliveries. */
export interface DispatchStore extends RunDeliveryStore {
  /**
   * Every due-index entry at or before `now` in the given slices of the index (every shard when
   * absent), each shard's oldest first.
   */
  dueEntries(now: number, slices?: readonly DueSlice[]): Promise<DueEntry[]>;
  findNotification(ref: NotificationRef): Promise<StoredNotification | undefined>;
  /** Step 1: the notification, its schedule entry and up to `limit` recipients. */
  dueNotification(ref: NotificationRef, limit: number): Promise<DueNotification>;
  /** Stores a schedule state unless a later one is stored (see NotificationRepository.storeSchedule). */
  storeSchedule(
    ref: NotificationRef,
    state: ScheduleState,
    signature: string,
    scheduleVersion: number,
  ): Promise<void>;
  /** Takes a notification's schedule-change mark out of the index, if it is still the one read. */
  clearChangeMark(ref: NotificationRef, changeKey: string): Promise<void>;
  /**
   * Step 2 in one transaction: creates the run unless its id exists (a pending run enters the due
   * index under its lease), moves the entry from the one read, and writes the deliveries.
   */
  claimInstant(
    run: Run,
    lease: Lease | undefined,
    move: EntryMove,
    deliveries: readonly Delivery[],
    /** A skipped run's webhook message, recorded in the same transaction. */
    event?: WebhookEvent,
  ): Promise<'claimed' | 'run-exists' | 'entry-moved'>;
  /** Moves the entry alone (nothing fires); false if it had moved already. */
  moveEntry(ref: NotificationRef, move: EntryMove): Promise<boolean>;
  findDashboard(deploymentId: number, dashboardId: number): Promise<Dashboard | undefined>;
  /** Creates the run unless its id exists (false then). A pending run enters the due index under its lease. */
  createRun(run: Run, lease: Lease | undefined): Promise<boolean>;
  /** Takes over a pending run whose lease ended by `now`; undefined when it is finished, gone or held. */
  takeOver(ref: RunRef, now: number, lease: Lease): Promise<RunProgress | undefined>;
}

/**
 * Send-now's storage: the notification, its dashboard, the write that decides the send-now limit, the
 * run's deliveries, and the Idempotency-Key and the run it made.
 */
export interface SendNowStore extends RunDeliveryStore, IdempotencyKeys {
  findNotification: DispatchStore['findNotification'];
  findDashboard: DispatchStore['findDashboard'];
  findRun(ref: RunRef): Promise<Run | undefined>;
  /**
   * Creates a manual run and records it as the notification's latest send-now, in one atomic write,
   * unless the previous send-now was after `previousNoLaterThan` or its run is still dispatching. The
   * same write marks a held key done with the run, and writes `deliveries` (a test run's, all of them).
   */
  createManualRun(
    run: Run,
    lease: Lease | undefined,
    previousNoLaterThan: number,
    /** The request's audit event (`sent`, `test_sent`), written with the run. */
    event: NewAuditEvent,
    held?: HeldKey,
    deliveries?: readonly Delivery[],
  ): Promise<ManualRunClaim>;
}

/** Starts another worker on slices of the due index a pass hands on: deployed, an invocation of its function. */
interface Continuation {
  start(slices: readonly DueSlice[]): Promise<void>;
}

/** Where delivery jobs go: a queue when deployed, files locally. Sending the same job again is harmless. */
export interface JobSink {
  send(jobs: readonly DeliveryJob[]): Promise<void>;
}

export interface DispatchOptions {
  /** The instant the pass runs as of (epoch ms). */
  now: number;
  /**
   * The pass's clock, running on from `now` (lib/clock.ts's `clockFrom`); without one, time stands
   * at `now` and the pace waits for nothing (a test's fixed clock).
   */
  clock?: Clock;
  /** Draws the pass's lease owner, unique to it. */
  randomHex: RandomHex;
  /** The cron code a pass needs (lib/domain/schedules/schedule-planning.ts); send-now needs none. */
  /** Whether a skipped run's `run.skipped` webhook message is wanted, and its id. */
  events?: EventRecorder;
  planner?: SchedulePlanner;
  misfireGraceMinutes: number;
  /** The invocation's end; work stops in time and a later pass resumes it. */
  deadline?: Deadline;
  leaseMs?: number;
  pageSize?: number;
  concurrency?: number;
  /** The slices of the due index this pass reads; passes over disjoint slices share a busy minute. */
  slices?: readonly DueSlice[];
  /**
   * When what the pass read should all have fired (epoch ms): the end of its minute's window. With a
   * continuation, the pass hands on, as soon as it has measured its pace, the shards it would not
   * fire by then, and at its own deadline whatever it has not started.
   */
  fireBy?: number;
  continuation?: Continuation;
  /**
   * Entries started per second in any one shard, at most: each writes a few entries into its shard's
   * index partition, which takes at most 1,000 writes a second (lib/domain/dispatch/dispatch-fanout.ts).
   */
  maxPerSecondPerShard?: number;
}

export interface PassSummary {
  /** Entries read from the due index. */
  due: number;
  /** Runs made for scheduled instants (dispatched or skipped). */
  fired: number;
  /** Instants older than the grace, not fired. */
  missed: number;
  /** Runs resumed after their lease ended (a crash or a stop for time). */
  resumed: number;
  queued: number;
  skipped: number;
  /** Runs left for a later pass (out of time). */
  unfinished: number;
  /** Entries handed on to continuations, started at once. */
  handedOn: number;
  /** Entries neither done nor handed on (out of time, or a continuation refused): the next minute's. */
  left: number;
  /** Entries that failed; a later pass retries them. */
  failed: number;
  runs: Run[];
}

const DEFAULT_LEASE_MS = 2 * 60_000;
const DEFAULT_PAGE_SIZE = 100;
const DEFAULT_CONCURRENCY = 8;
/**
 * A run of at most this many recipients, all in the first page, has its deliveries written in the
 * claim's transaction: one request fewer per fire, at the price of transactional write units.
 */
const CLAIM_DELIVERIES_MAX = 25;

interface Context<Store extends RunDeliveryStore = DispatchStore> {
  store: Store;
  sink: JobSink;
  clock: Clock;
  options: DispatchOptions;
  owner: string;
  summary: PassSummary;
  /** Dashboards read in this pass: many notifications of a busy minute share a few dashboards. */
  dashboards: Map<string, Promise<Dashboard | undefined>>;
  /**
   * Console users read in this pass (undefined: none such), for the same reason: a deployment's
   * notifications go to its few console users. A pass decides with reads no older than itself.
   */
  users: Map<number, Promise<ConsoleUser | undefined>>;
}

/** A pass's (or a send-now's) working state: its clock runs on from `options.now`, its lease owner is its own. */
function newContext<Store extends RunDeliveryStore>(
  store: Store,
  sink: JobSink,
  options: DispatchOptions,
): Context<Store> {
  const clock = options.clock ?? stoppedClock(options.now);
  return {
    store,
    sink,
    options,
    clock,
    owner: options.randomHex(8),
    dashboards: new Map(),
    users: new Map(),
    summary: {
      due: 0,
      fired: 0,
      missed: 0,
      resumed: 0,
      queued: 0,
      skipped: 0,
      unfinished: 0,
      handedOn: 0,
      left: 0,
      failed: 0,
      runs: [],
    },
  };
}

function dashboardOf(
  context: Context,
  deploymentId: number,
  dashboardId: number,
): Promise<Dashboard | undefined> {
  const key = `${deploymentId}/${dashboardId}`;
  let dashboard = context.dashboards.get(key);
  if (!dashboard) {
    dashboard = context.store.findDashboard(deploymentId, dashboardId);
    context.dashboards.set(key, dashboard);
  }
  return dashboard;
}

const timeLeft = (context: Context<RunDeliveryStore>) =>
  hasTimeFor(context.options.deadline ?? NO_DEADLINE, PASS_STEP_RESERVE_MS);

const leaseFrom = (context: Context<RunDeliveryStore>): Lease => ({
  owner: context.owner,
  until: context.clock.now() + (context.options.leaseMs ?? DEFAULT_LEASE_MS),
});

const newRun = (
  ref: NotificationRef,
  trigger: RunTrigger,
  runId: string,
  scheduledFor: number,
  createdAt: number,
  skipReason: Run['skipReason'],
): Run => ({
  runId,
  deploymentId: ref.deploymentId,
  notificationId: ref.id,
  trigger,
  scheduledFor: new Date(scheduledFor).toISOString(),
  createdAt: new Date(createdAt).toISOString(),
  status: skipReason ? 'skipped' : 'dispatching',
  skipReason,
  recipients: noRecipients(),
  completedAt: null,
});

/**
 * Step 3 and 4: delivers page after page from the cursor; returns the run as it stands, or undefined
 * when the notification was deleted meanwhile: each page's jobs leave only after a read that finds it
 * still there, so no job is sent after a delete's answer, and what the page wrote is the purge's.
 * After `maxPages` pages the run is handed over: its progress is recorded with a lease that ends at
 * once, so the next pass takes it over from there.
 */
async function deliver(
  context: Context<RunDeliveryStore>,
  progress: RunProgress,
  lease: Lease,
  notification: Notification,
  dashboard: Dashboard,
  maxPages = Number.POSITIVE_INFINITY,
): Promise<Run | undefined> {
  const { store, sink } = context;
  const { run } = progress;
  const ref: RunRef = { deploymentId: run.deploymentId, id: run.notificationId, runId: run.runId };
  let { cursor } = progress;
  let counts = { ...run.recipients };
  for (let pages = 1; ; pages++) {
    if (!timeLeft(context)) {
      await store.releaseLease(ref, lease, context.clock.now());
      context.summary.unfinished += 1;
      return { ...run, recipients: counts };
    }
    const page = await store.recipientsPage(ref, cursor, context.options.pageSize ?? DEFAULT_PAGE_SIZE);
    if (page.rows.length > 0) {
      const { deliveries, jobs } = await decide(context, run, notification, dashboard, page.rows);
      await store.putDeliveries(run, deliveries);
      if (!(await store.notificationIsLive(ref))) return undefined;
      if (jobs.length > 0) await sink.send(jobs);
      const added = countDeliveries(deliveries);
      counts = { ...counts, queued: counts.queued + added.queued, skipped: counts.skipped + added.skipped };
    }
    if (page.last === undefined) {
      if (!(await store.finishRun(ref, lease, counts))) return { ...run, recipients: counts };
      context.summary.queued += counts.queued;
      context.summary.skipped += counts.skipped;
      return { ...run, status: 'dispatched', recipients: counts };
    }
    const handOver = pages >= maxPages;
    lease.until = context.clock.now() + (handOver ? 0 : (context.options.leaseMs ?? DEFAULT_LEASE_MS));
    if (!(await store.saveProgress(ref, lease, page.last, counts, lease.until)) || handOver)
      return { ...run, recipients: counts };
    cursor = page.last;
  }
}

/** Steps 1 to 4 for one due notification. */
async function fireNotification(
  context: Context,
  planner: SchedulePlanner,
  entry: DueEntry & { kind: 'notification' },
): Promise<void> {
  const { store, options } = context;
  const ref = { deploymentId: entry.deploymentId, id: entry.notificationId };
  const pageSize = options.pageSize ?? DEFAULT_PAGE_SIZE;
  // The index is read eventually consistent: the entry itself says what is due now.
  const due = await store.dueNotification(ref, pageSize);
  const { schedule } = due;
  if (schedule?.dueKey !== entry.dueKey) return;
  const read: EntryRead = { dueKey: entry.dueKey, scheduleVersion: schedule.scheduleVersion };
  if (!due.notification) {
    // An entry whose notification a delete has just taken: it leaves the index, nothing fires.
    await store.moveEntry(ref, { ...read, upcoming: [] });
    return;
  }
  // A schedule written since this entry was stored: its own state comes (or its mark's pass stores it).
  if (due.notification.scheduleVersion > schedule.scheduleVersion) return;
  const notification = due.notification.value;
  // The instants still ahead are kept; a disabled notification has none and leaves the index.
  const move: EntryMove = {
    ...read,
    upcoming: planner.upcomingAfter(notification, options.now, schedule.upcoming),
  };
  if (!notification.isEnabled) {
    await store.moveEntry(ref, move);
    return;
  }
  const latest = planner.latestFiringAtOrBefore(notification, options.now);
  // An entry fires no instant earlier than its own: those were before the schedule it was made from.
  if (
    latest === undefined ||
    latest < entry.dueAt ||
    options.now - latest > options.misfireGraceMinutes * 60_000
  ) {
    if (await store.moveEntry(ref, move)) context.summary.missed += 1;
    return;
  }
  // Paused or suspended at this instant: it is not fired, and the move keeps no instant before the hold's end.
  const from = resumesAt(notification.hold);
  if (from === null || (from !== undefined && latest < from)) {
    await store.moveEntry(ref, move);
    return;
  }
  // The owner is read with the first page's console users, in the one read the fire makes of them.
  const [dashboard, ownerActive] = await Promise.all([
    dashboardOf(context, notification.deploymentId, notification.dashboardId),
    ownerIsActive(context, notification, due.firstPage.rows),
  ]);
  const skipReason = ownerActive ? runSkipReason('schedule', notification, dashboard) : ORPHANED_REASON;
  const run = newRun(ref, 'schedule', scheduledRunId(latest), latest, context.clock.now(), skipReason);
  const lease = skipReason ? undefined : leaseFrom(context);
  const { rows, last } = due.firstPage;
  const whole = lease && dashboard && last === undefined && rows.length <= CLAIM_DELIVERIES_MAX;
  const decided = whole ? await decide(context, run, notification, dashboard, rows) : undefined;
  const skipEvent =
    skipReason && context.options.events
      ? runEvent(
          run,
          await context.options.events.subscribedTypes(run.deploymentId),
          context.options.events.newEventId(options.now),
          context.clock.now(),
        )
      : undefined;
  const claim = await store.claimInstant(run, lease, move, decided?.deliveries ?? [], skipEvent);
  // A run made for this instant whose entry stayed behind (by an older version): only the move is left.
  if (claim === 'run-exists') await store.moveEntry(ref, move);
  if (claim !== 'claimed') return;
  context.summary.fired += 1;
  context.summary.runs.push(run);
  if (!lease || !dashboard) return;
  if (!decided) {
    await deliver(context, { run, cursor: undefined }, lease, notification, dashboard);
    return;
  }
  if (decided.jobs.length > 0) await context.sink.send(decided.jobs);
  const counts = countDeliveries(decided.deliveries);
  const runRef: RunRef = { ...ref, runId: run.runId };
  if (!(await store.finishRun(runRef, lease, counts))) return;
  context.summary.queued += counts.queued;
  context.summary.skipped += counts.skipped;
}

/**
 * A schedule-change mark: the state of the schedule written at the mark is stored if its writer did
 * not (a crash between its two writes), with the instants from the moment of the change on, and the
 * mark leaves the index.
 */
async function settleChange(
  context: Context,
  planner: SchedulePlanner,
  entry: DueEntry & { kind: 'change' },
): Promise<void> {
  const { store } = context;
  const ref = { deploymentId: entry.deploymentId, id: entry.notificationId };
  const { notification, schedule } = await store.dueNotification(ref, 0);
  if (!notification || notification.changeKey !== entry.dueKey) return;
  if (!schedule || schedule.scheduleVersion < notification.scheduleVersion) {
    const state = planner.planSchedule(notification.value, entry.dueAt - 1);
    await store.storeSchedule(
      ref,
      state,
      scheduleSignature(notification.value),
      notification.scheduleVersion,
    );
  }
  await store.clearChangeMark(ref, entry.dueKey);
}

const consoleUserIds = (rows: readonly RecipientRow[]) =>
  rows.flatMap(({ recipient }) => (recipient.type === 'USER' ? [recipient.userId] : []));

/**
 * Whether the notification's owner is not a console user who is no longer active, reading the owner
 * together with the console users among `rows` (which `decide` then finds read).
 */
async function ownerIsActive(
  context: Context<RunDeliveryStore>,
  notification: Notification,
  rows: readonly RecipientRow[],
): Promise<boolean> {
  const { owner } = notification;
  if (owner?.type !== 'USER') return true;
  const users = await consoleUsers(context, [owner.userId, ...consoleUserIds(rows)]);
  return users.get(owner.userId)?.active === true;
}

/** Console users by id, each read once a pass: those not read yet in one request. */
async function consoleUsers(
  context: Context<RunDeliveryStore>,
  ids: readonly number[],
): Promise<Map<number, ConsoleUser>> {
  const userIds = [...new Set(ids)];
  const unread = userIds.filter((id) => !context.users.has(id));
  if (unread.length > 0) {
    const read = context.store.users(unread);
    // A failed read is not kept: the next notification that needs these users reads them again.
    read.catch(() => {
      for (const id of unread) context.users.delete(id);
    });
    for (const id of unread)
      context.users.set(
        id,
        read.then((found) => found.get(id)),
      );
  }
  const found = await Promise.all(userIds.map((id) => context.users.get(id)));
  return new Map(found.flatMap((user) => (user ? [[user.id, user] as const] : [])));
}

/** Who of a page of recipients gets a delivery, reading the console users among them. */
async function decide(
  context: Context<RunDeliveryStore>,
  run: Run,
  notification: Notification,
  dashboard: Dashboard,
  rows: readonly RecipientRow[],
): Promise<{ deliveries: Delivery[]; jobs: DeliveryJob[] }> {
  const users = await consoleUsers(context, consoleUserIds(rows));
  const suppressed = await context.store.suppressedAmong(run.deploymentId, recipientEmails(rows, users));
  return decideDeliveries(run, notification, dashboard, rows, users, suppressed);
}

/** A run whose lease ended unfinished: take it over and deliver from where it stopped. */
async function resumeRun(context: Context, entry: DueEntry & { kind: 'run' }): Promise<void> {
  const { store } = context;
  const ref: RunRef = { deploymentId: entry.deploymentId, id: entry.notificationId, runId: entry.runId };
  const lease = leaseFrom(context);
  const progress = await store.takeOver(ref, context.clock.now(), lease);
  if (!progress) return;
  context.summary.resumed += 1;
  const stored = await store.findNotification(ref);
  const dashboard = stored && (await dashboardOf(context, ref.deploymentId, stored.notification.dashboardId));
  if (!stored || !dashboard) {
    // Gone since the run was made: nothing more can be delivered; what was queued stands.
    await store.finishRun(ref, lease, progress.run.recipients);
    return;
  }
  await deliver(context, progress, lease, stored.notification, dashboard);
}

/** Waits for each shard's next slot, so that no shard starts more than `perSecond` entries a second. */
function pacer(perSecond: number | undefined, clock: Clock): (shard: number | undefined) => Promise<void> {
  if (!perSecond) return async () => {};
  const nextSlot = new Map<number, number>();
  return async (shard) => {
    if (shard === undefined) return;
    const now = clock.now();
    const slot = Math.max(now, nextSlot.get(shard) ?? now);
    nextSlot.set(shard, slot + 1000 / perSecond);
    if (slot > now) await clock.sleep(slot - now);
  };
}

/** The pass measures its pace over at least this long before it hands anything on. */
const WARM_UP_MS = 1_000;
/** And looks again this often. */
const REVIEW_EVERY_MS = 1_000;

/**
 * The entries a pass has still to start, one lane per shard in index order, taken in turn across the
 * lanes so that every shard goes on at its own partition's pace at once (one shard after another
 * would hold the whole pass to one partition's pace).
 */
function dueLanes(entries: readonly DueEntry[]) {
  const lanes = new Map<number, { entries: DueEntry[]; next: number }>();
  for (const entry of entries) {
    const shard = entry.shard ?? -1;
    const lane = lanes.get(shard) ?? { entries: [], next: 0 };
    lanes.set(shard, lane);
    lane.entries.push(entry);
  }
  let turn = lanes.values();
  return {
    /** The next entry to start, each lane in turn; undefined when none is left. */
    take(): DueEntry | undefined {
      for (let tried = 0; tried <= lanes.size; tried++) {
        let step = turn.next();
        if (step.done) {
          turn = lanes.values();
          step = turn.next();
        }
        if (step.done) return undefined;
        const lane = step.value;
        const entry = lane.entries[lane.next];
        if (entry) {
          lane.next += 1;
          return entry;
        }
      }
      return undefined;
    },
    remainingByShard: () =>
      new Map([...lanes].map(([shard, lane]) => [shard, lane.entries.length - lane.next] as const)),
    remaining: () => [...lanes.values()].reduce((sum, lane) => sum + lane.entries.length - lane.next, 0),
    /**
     * Takes the lanes' entries not started out of the pass: the slice of the index each one is (after
     * the last entry started, through the last read), with how many entries it holds.
     */
    handOver(shards: readonly number[]): { slices: DueSlice[]; count: number; first?: DueEntry } {
      const slices: DueSlice[] = [];
      let count = 0;
      let first: DueEntry | undefined;
      for (const shard of shards) {
        const lane = lanes.get(shard);
        const last = lane?.entries.at(-1);
        if (!lane || !last || lane.next >= lane.entries.length) continue;
        count += lane.entries.length - lane.next;
        first ??= lane.entries[lane.next];
        const started = lane.entries[lane.next - 1];
        slices.push({ shard, ...(started && { after: started.dueKey }), through: last.dueKey });
        lane.next = lane.entries.length;
      }
      return { slices, count, first };
    },
    shards: () => [...lanes.keys()],
  };
}

/** One pass as of `options.now`. Entries fail one by one; a failed one is retried by a later pass. */
export async function dispatchPass(
  store: DispatchStore,
  sink: JobSink,
  options: DispatchOptions & { planner: SchedulePlanner },
  onError: (error: unknown, entry: DueEntry) => void = () => {},
): Promise<PassSummary> {
  const context = newContext(store, sink, options);
  const { clock, summary } = context;
  const entries = await store.dueEntries(options.now, options.slices);
  summary.due = entries.length;
  const pace = pacer(options.maxPerSecondPerShard, clock);
  const lanes = dueLanes(entries);
  const started = clock.now();
  const measured: MeasuredPace = { done: 0, seconds: 0 };
  const handingOn: Promise<void>[] = [];
  const concurrency = options.concurrency ?? DEFAULT_CONCURRENCY;

  /** Starts continuations on these groups of shards' remaining entries; what one refuses is left. */
  const handOn = (groups: readonly (readonly number[])[]) => {
    for (const shards of groups) {
      const { slices, count, first } = lanes.handOver(shards);
      if (count === 0 || !first) continue;
      const continuation = options.continuation;
      if (!continuation) {
        summary.left += count;
        continue;
      }
      handingOn.push(
        continuation.start(slices).then(
          () => {
            summary.handedOn += count;
          },
          (error: unknown) => {
            summary.left += count;
            onError(error, first);
          },
        ),
      );
    }
  };

  /** At the pace measured so far, hands on the shards the pass would not fire by `fireBy`. */
  let reviewedAt = started;
  const review = () => {
    const now = clock.now();
    const { fireBy, continuation } = options;
    if (!continuation || fireBy === undefined || now >= fireBy) return;
    if (now - started < WARM_UP_MS || now - reviewedAt < REVIEW_EVERY_MS || measured.done < concurrency)
      return;
    reviewedAt = now;
    measured.seconds = (now - started) / 1000;
    const untilDeadline = (context.options.deadline ?? NO_DEADLINE).remainingMs() - PASS_STEP_RESERVE_MS;
    const secondsLeft = Math.min(fireBy - now, untilDeadline) / 1000;
    const plan = planHandOn(lanes.remainingByShard(), measured, secondsLeft);
    // Past the window by the time a continuation would start: it is still sooner than the next minute.
    handOn(secondsLeft > CONTINUATION_START_SECONDS ? plan.continuations : [plan.continuations.flat()]);
  };

  const worker = async () => {
    while (timeLeft(context)) {
      const entry = lanes.take();
      if (!entry) return;
      await pace(entry.shard);
      try {
        if (entry.kind === 'notification') await fireNotification(context, options.planner, entry);
        else if (entry.kind === 'change') await settleChange(context, options.planner, entry);
        else await resumeRun(context, entry);
      } catch (error) {
        summary.failed += 1;
        onError(error, entry);
      }
      measured.done += 1;
      review();
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, entries.length) }, worker));
  // Out of time: what was not started goes on now, never silently a minute late.
  handOn([lanes.shards()]);
  await Promise.all(handingOn);
  return summary;
}

export interface SendNowOptions {
  /** The request's time (epoch ms). */
  now: number;
  /** The request's clock, running on from `now`; without one, time stands at `now`. */
  clock?: Clock;
  /** Draws the run id's random part and the lease owner. */
  randomHex: RandomHex;
  /** A send-now less than this after the notification's previous one is refused. */
  minIntervalMs: number;
  pageSize?: number;
  leaseMs?: number;
  /** Who asks, for the audit event the run is written with. */
  audit: AuditContext;
}

/**
 * Send now: a manual run at once, whether or not the schedule or delivery is enabled (an unavailable
 * dashboard still skips it). The request does a bounded amount of work whatever the number of
 * recipients: it records the run and delivers its first page of recipients; a run with more is left
 * `dispatching` under a lease that has already ended, and the next dispatcher pass takes it over and
 * finishes it. Refused (429) less than `minIntervalMs` after the notification's previous send-now, or
 * while that one is still dispatching, decided by one conditional write, so concurrent send-nows
 * cannot all pass.
 */
export async function sendNow(
  store: SendNowStore,
  sink: JobSink,
  ref: NotificationRef,
  options: SendNowOptions,
  idempotency?: IdempotencyKeyInput,
): Promise<RunDto> {
  const stored = await store.findNotification(ref);
  if (!stored) throw notificationNotFound(ref);
  const claim = idempotency && {
    ...idempotency,
    fingerprint: requestFingerprint({ operation: 'send', target: ref, body: {} }),
  };
  return onceForKey(
    store,
    ref.deploymentId,
    claim,
    (held) => makeManualRun(store, sink, stored.notification, options, held),
    (done) => runMadeByKey(store, done),
  );
}

async function makeManualRun(
  store: SendNowStore,
  sink: JobSink,
  notification: Notification,
  options: SendNowOptions,
  held: HeldKey | undefined,
): Promise<RunDto> {
  const ref: NotificationRef = { deploymentId: notification.deploymentId, id: notification.id };
  const dashboard = await store.findDashboard(notification.deploymentId, notification.dashboardId);
  const skipReason = runSkipReason('manual', notification, dashboard);
  const run = newRun(
    ref,
    'manual',
    manualRunId(options.now, options.randomHex(4)),
    options.now,
    options.now,
    skipReason,
  );
  const context = newContext(store, sink, { ...options, misfireGraceMinutes: 0 });
  const lease = skipReason ? undefined : leaseFrom(context);
  const event = auditEvent(options.audit, ref, 'sent', { runId: run.runId }, options.now);
  const claim = await store.createManualRun(run, lease, options.now - options.minIntervalMs, event, held);
  if (!claim.created) throw refusalOf(claim, ref, options);
  // The run itself was written on the condition that the notification exists (the claim above); from
  // here a crash leaves it under its lease, and the next dispatcher pass finishes it.
  if (!lease || !dashboard) return toRunDto(run);
  const made = await deliver(context, { run, cursor: undefined }, lease, notification, dashboard, 1);
  // Raced by a delete (lib/store/notifications/notification-guard.ts): what the page wrote is the purge's.
  if (!made) throw notificationNotFound(ref);
  return toRunDto(made);
}

/** Why a send-now (or a test send, which shares its limit) was not made: 404, or 429 with when to retry. */
export function refusalOf(
  claim: ManualRunClaim & { created: false },
  ref: NotificationRef,
  options: Pick<SendNowOptions, 'now' | 'minIntervalMs'>,
): Error {
  if (claim.reason === 'gone') return notificationNotFound(ref);
  const intervalSeconds = options.minIntervalMs / 1000;
  if (claim.reason === 'dispatching')
    return new TooManyRequestsError(
      'The previous send-now of this notification is still dispatching; send again when it is dispatched',
      intervalSeconds,
    );
  return new TooManyRequestsError(
    `At most one send-now of a notification every ${intervalSeconds} s`,
    // A previous send-now stamped later than this request's clock counts as just made.
    (Math.min(claim.previousAt, options.now) + options.minIntervalMs - options.now) / 1000,
  );
}
