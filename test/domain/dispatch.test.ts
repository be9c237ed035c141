import { describe, expect, it } from 'vitest';
import type { Deadline } from '#lib/deadline';
import { type Clock, stoppedClock } from '#lib/domain/clock';
import type { DueSlice } from '#lib/domain/dispatch/dispatch-fanout';
import { dispatchPass } from '#lib/domain/dispatch/dispatch-pass';
import type {
  DispatchStore,
  DueEntry,
  EntryMove,
  Lease,
  RunProgress,
} from '#lib/domain/dispatch/dispatch-ports';
import type { DispatchOptions } from '#lib/domain/dispatch/pass-context';
import type { ConsoleUser, Dashboard } from '#lib/domain/entities';
import type { Notification, NotificationRef } from '#lib/domain/notifications/notification';
import {
  type Delivery,
  type DeliveryJob,
  manualRunId,
  noRecipients,
  type RecipientCounts,
  type RecipientRow,
  type Run,
  type RunRef,
  scheduledRunId,
} from '#lib/domain/runs/runs';
import { type ManualRunClaim, type SendNowStore, sendNow } from '#lib/domain/runs/send-now';
import { type ScheduleState, scheduleSignature } from '#lib/domain/schedules/schedule';
import { type SchedulePlanner, schedulePlanner } from '#lib/domain/schedules/schedule-planning';
import { NotFoundError, TooManyRequestsError } from '#lib/errors';
import {
  consoleUser,
  dailyNotification,
  dailyRun,
  salesDashboard,
  testAudit,
} from '#test/support/domain-fixtures';

/**
 * The dispatcher and send-now against storage held in memory: daily notifications at 09:00 UTC with
 * their schedule entries and recipient rows, a store that records every write it is asked for, and a
 * sink that records the jobs that leave.
 */

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;
const nine = Date.UTC(2026, 10, 24, 9);
const now = nine + 20_000;
const randomHex = (bytes: number) => 'ab'.repeat(bytes);
const owner = randomHex(8);
/** The four 09:00 instants after today's, which a fired entry moves on to. */
const ahead = [1, 2, 3, 4].map((days) => nine + days * DAY);

const userRow = (userId: number): RecipientRow => ({
  key: `R#U#${String(userId).padStart(4, '0')}`,
  recipient: { type: 'USER', userId },
});
const userRows = (count: number) => Array.from({ length: count }, (_, i) => userRow(i + 1));
const dueKeyOf = (notification: Notification) => `due#${notification.id}`;
const entryOf = (notification: Notification, more: { dueAt?: number; shard?: number } = {}): DueEntry => ({
  kind: 'notification',
  deploymentId: notification.deploymentId,
  notificationId: notification.id,
  dueKey: dueKeyOf(notification),
  dueAt: nine,
  ...more,
});

interface WorldOptions {
  notifications?: Notification[];
  /** The due entries a pass reads; by default one per notification, due at 09:00. */
  entries?: DueEntry[];
  /** Every notification's recipient rows, in key order. */
  rows?: RecipientRow[];
  users?: ConsoleUser[];
  dashboard?: Dashboard | undefined;
  /** The schedule entry as stored; `null` for none. */
  schedule?: { dueKey?: string; scheduleVersion?: number } | null;
  /** The notification's own schedule version and change mark. */
  notificationVersion?: number;
  changeKey?: string;
  claim?: 'claimed' | 'run-exists' | 'entry-moved';
  manualClaim?: ManualRunClaim;
  /** What moveEntry answers: false when another pass moved the entry first. */
  entryMoves?: boolean;
  /** Whether the run's lease is still ours when progress is saved or the run finished. */
  leaseKept?: boolean;
  live?: boolean;
  takeOver?: RunProgress;
  /** Console-user reads that fail before they succeed. */
  failingUserReads?: number;
}

function world(options: WorldOptions = {}) {
  const notifications = options.notifications ?? [dailyNotification()];
  const rows = options.rows ?? userRows(2);
  const users = new Map(
    (options.users ?? userRows(30).map((_, i) => consoleUser(i + 1))).map((u) => [u.id, u]),
  );
  const log = {
    moves: [] as EntryMove[],
    claims: [] as { run: Run; lease: Lease | undefined; move: EntryMove; deliveries: readonly Delivery[] }[],
    manualClaims: [] as { run: Run; lease: Lease | undefined; previousNoLaterThan: number }[],
    firstPageLimits: [] as number[],
    pages: [] as { after: string | undefined; limit: number }[],
    put: [] as Delivery[][],
    saved: [] as { cursor: string; counts: RecipientCounts; renewed: number }[],
    finished: [] as { ref: RunRef; counts: Pick<RecipientCounts, 'queued' | 'skipped'> }[],
    released: [] as { ref: RunRef; at: number }[],
    takenOver: [] as { ref: RunRef; at: number; lease: Lease }[],
    userReads: [] as number[][],
    dashboardReads: [] as number[],
    schedules: [] as { state: ScheduleState; signature: string; scheduleVersion: number }[],
    cleared: [] as string[],
    dueReads: [] as { at: number; slices: readonly DueSlice[] | undefined }[],
  };
  const sent: DeliveryJob[][] = [];
  let failingUserReads = options.failingUserReads ?? 0;
  const find = (ref: NotificationRef) =>
    notifications.find((n) => n.deploymentId === ref.deploymentId && n.id === ref.id);
  const page = (after: string | undefined, limit: number) => {
    const start = after === undefined ? 0 : rows.findIndex((row) => row.key > after);
    const found = start < 0 ? [] : rows.slice(start, start + limit);
    return { rows: found, last: start >= 0 && start + limit < rows.length ? found.at(-1)?.key : undefined };
  };
  const store: DispatchStore & SendNowStore = {
    async dueEntries(at, slices) {
      log.dueReads.push({ at, slices });
      return options.entries ?? notifications.map((notification) => entryOf(notification));
    },
    findNotification: async (ref) => {
      const notification = find(ref);
      return notification && { notification, dueKey: undefined };
    },
    findRun: async () => undefined,
    claimKey: async (deploymentId, claim) => ({ held: { deploymentId, claim, owner: 'o' } }),
    completeKey: async () => {},
    releaseKey: async () => {},
    async dueNotification(ref, limit) {
      log.firstPageLimits.push(limit);
      const notification = find(ref);
      const { schedule } = options;
      return {
        notification: notification && {
          value: notification,
          scheduleVersion: options.notificationVersion ?? 1,
          changeKey: options.changeKey,
        },
        schedule:
          schedule === null
            ? undefined
            : {
                upcoming: [nine, nine + DAY],
                scheduleVersion: schedule?.scheduleVersion ?? 1,
                dueKey: schedule?.dueKey ?? `due#${ref.id}`,
              },
        firstPage: page(undefined, limit),
      };
    },
    storeSchedule: async (_ref, state, signature, scheduleVersion) =>
      void log.schedules.push({ state, signature, scheduleVersion }),
    clearChangeMark: async (_ref, changeKey) => void log.cleared.push(changeKey),
    async claimInstant(run, lease, move, deliveries) {
      log.claims.push({ run, lease, move, deliveries });
      return options.claim ?? 'claimed';
    },
    async moveEntry(_ref, move) {
      log.moves.push(move);
      return options.entryMoves ?? true;
    },
    async findDashboard(_deploymentId, dashboardId) {
      log.dashboardReads.push(dashboardId);
      return 'dashboard' in options ? options.dashboard : salesDashboard({ id: dashboardId });
    },
    createRun: async () => true,
    async takeOver(ref, at, lease) {
      log.takenOver.push({ ref, at, lease: { ...lease } });
      return options.takeOver;
    },
    async recipientsPage(_ref, after, limit) {
      log.pages.push({ after, limit });
      return page(after, limit);
    },
    async users(ids) {
      log.userReads.push([...ids]);
      if (failingUserReads-- > 0) throw new Error('throttled');
      return new Map(ids.flatMap((id) => users.get(id) ?? []).map((user) => [user.id, user]));
    },
    suppressedAmong: async () => new Set(),
    putDeliveries: async (_run, deliveries) => void log.put.push([...deliveries]),
    async saveProgress(_ref, _lease, cursor, counts, renewed) {
      log.saved.push({ cursor, counts, renewed });
      return options.leaseKept ?? true;
    },
    async finishRun(ref, _lease, counts) {
      log.finished.push({ ref, counts });
      return options.leaseKept ?? true;
    },
    releaseLease: async (ref, _lease, at) => void log.released.push({ ref, at }),
    notificationIsLive: async () => options.live ?? true,
    async createManualRun(run, lease, previousNoLaterThan) {
      log.manualClaims.push({ run, lease: lease && { ...lease }, previousNoLaterThan });
      return options.manualClaim ?? { created: true };
    },
  };
  const sink = {
    send: async (jobs: readonly DeliveryJob[]) => void sent.push([...jobs]),
  };
  const errors: { error: unknown; entry: DueEntry }[] = [];
  const pass = (more: Partial<DispatchOptions> & { planner?: SchedulePlanner } = {}) =>
    dispatchPass(
      store,
      sink,
      { now, randomHex, misfireGraceMinutes: 60, planner: schedulePlanner, ...more },
      (error, entry) => errors.push({ error, entry }),
    );
  return { store, sink, log, sent, errors, pass };
}

const recipientsOf = (jobs: DeliveryJob[][]) =>
  jobs.flat().map((job) => job.recipient.type === 'USER' && job.recipient.userId);
const ref = { deploymentId: 7, id: 700 };
const runRef = { ...ref, runId: scheduledRunId(nine) };

describe('a dispatch pass firing a due notification', () => {
  it('claims the run of the instant with the entry moved on and the deliveries of a small run, then sends and finishes it', async () => {
    const { log, sent, pass } = world();
    const summary = await pass();
    const run = dailyRun();
    expect(run).toMatchObject({
      scheduledFor: new Date(nine).toISOString(),
      createdAt: new Date(now).toISOString(),
    });
    expect(log.claims).toEqual([
      {
        run,
        lease: { owner, until: now + 2 * MINUTE },
        move: { dueKey: 'due#700', scheduleVersion: 1, upcoming: ahead },
        deliveries: [
          expect.objectContaining({ recipientKey: 'R#U#0001', status: 'queued' }),
          expect.anything(),
        ],
      },
    ]);
    expect(recipientsOf(sent)).toEqual([1, 2]);
    expect(log.finished).toEqual([{ ref: runRef, counts: { queued: 2, skipped: 0 } }]);
    expect(summary).toEqual({
      due: 1,
      fired: 1,
      missed: 0,
      resumed: 0,
      queued: 2,
      skipped: 0,
      unfinished: 0,
      handedOn: 0,
      left: 0,
      failed: 0,
      runs: [run],
    });
  });

  it('reads the due entries of the pass instant in its slices', async () => {
    const { log, pass } = world();
    const slices = [{ shard: 2 }, { shard: 3, after: 'a', through: 'b' }];
    await pass({ slices });
    expect(log.dueReads).toEqual([{ at: now, slices }]);
  });

  it('reads no console user for a run of embed users', async () => {
    const ann: RecipientRow = {
      key: 'R#E#acme#ann',
      recipient: {
        type: 'EMBED_USER',
        embedTenantName: 'acme',
        normalizedExternalId: 'ann',
        externalId: 'Ann',
        embedUserId: 9,
        email: 'ann@acme.example',
        properties: {},
      },
    };
    const { log, sent, pass } = world({
      rows: [ann],
      dashboard: salesDashboard({ sharedWithTenants: ['acme'] }),
    });
    await pass();
    expect(log.userReads).toEqual([]);
    expect(sent.flat().map((job) => job.recipient.type)).toEqual(['EMBED_USER']);
  });

  it('reads the first page of recipients in pages of 100 unless told otherwise', async () => {
    const { log, pass } = world();
    await pass();
    await pass({ pageSize: 10 });
    expect(log.firstPageLimits).toEqual([100, 10]);
  });

  it('keeps its hands off an entry the store no longer holds under that key', async () => {
    const { log, sent, pass } = world({ schedule: { dueKey: 'due#700-later' } });
    expect(await pass()).toMatchObject({ due: 1, fired: 0, missed: 0 });
    expect([log.moves, log.claims, sent]).toEqual([[], [], []]);
  });

  it('keeps its hands off a notification without a schedule entry', async () => {
    const { log, pass } = world({ schedule: null });
    expect(await pass()).toMatchObject({ fired: 0, failed: 0 });
    expect([log.moves, log.claims]).toEqual([[], []]);
  });

  it('takes the entry of a deleted notification out of the index, firing nothing', async () => {
    const { log, pass } = world({ notifications: [], entries: [entryOf(dailyNotification())] });
    expect(await pass()).toMatchObject({ fired: 0, missed: 0 });
    expect(log.moves).toEqual([{ dueKey: 'due#700', scheduleVersion: 1, upcoming: [] }]);
    expect(log.claims).toEqual([]);
  });

  it('leaves an entry alone whose notification has a newer schedule written since', async () => {
    const { log, pass } = world({ notificationVersion: 2 });
    await pass();
    expect([log.moves, log.claims]).toEqual([[], []]);
  });

  it('fires an entry whose schedule is the notification’s own version', async () => {
    const { log, pass } = world({ notificationVersion: 3, schedule: { scheduleVersion: 3 } });
    await pass();
    expect(log.claims.map((claim) => claim.move.scheduleVersion)).toEqual([3]);
  });

  it('moves a disabled notification’s entry out of the index without a run', async () => {
    const { log, pass } = world({ notifications: [dailyNotification({ isEnabled: false })] });
    expect(await pass()).toMatchObject({ fired: 0, missed: 0 });
    expect(log.moves).toEqual([{ dueKey: 'due#700', scheduleVersion: 1, upcoming: [] }]);
    expect(log.claims).toEqual([]);
  });

  it('fires an instant exactly the grace late', async () => {
    const { log, pass } = world();
    await pass({ now: nine + 60 * MINUTE });
    expect(log.claims).toHaveLength(1);
  });

  it('counts an instant later than the grace as missed: the entry moves on, no run is made', async () => {
    const { log, pass } = world();
    expect(await pass({ now: nine + 60 * MINUTE + 1 })).toMatchObject({ fired: 0, missed: 1 });
    expect(log.moves.map((move) => move.upcoming)).toEqual([ahead]);
    expect(log.claims).toEqual([]);
  });

  it('does not count a missed instant whose entry another pass moved first', async () => {
    const { pass } = world({ entryMoves: false });
    expect(await pass({ now: nine + 2 * 60 * MINUTE })).toMatchObject({ missed: 0 });
  });

  it('fires no instant earlier than the entry’s own', async () => {
    const { log, pass } = world({ entries: [entryOf(dailyNotification(), { dueAt: nine + 1 })] });
    expect(await pass()).toMatchObject({ fired: 0, missed: 1 });
    expect(log.claims).toEqual([]);
  });

  it('misses an entry whose schedule has no instant at or before the pass', async () => {
    const planner = { ...schedulePlanner, latestFiringAtOrBefore: () => undefined };
    const { log, pass } = world();
    expect(await pass({ planner })).toMatchObject({ fired: 0, missed: 1 });
    expect(log.claims).toEqual([]);
  });

  it('records a skipped run without a lease or deliveries when the dashboard is unpublished', async () => {
    const { log, sent, pass } = world({ dashboard: salesDashboard({ published: false }) });
    const summary = await pass();
    expect(log.claims).toMatchObject([
      { run: { status: 'skipped', skipReason: 'dashboard_unavailable' }, lease: undefined, deliveries: [] },
    ]);
    expect(summary).toMatchObject({ fired: 1, queued: 0 });
    expect([sent, log.finished, log.pages]).toEqual([[], [], []]);
  });

  it('records a skipped run when the notification’s delivery is disabled', async () => {
    const { log, sent, pass } = world({ notifications: [dailyNotification({ notificationEnabled: false })] });
    await pass();
    expect(log.claims).toMatchObject([{ run: { status: 'skipped', skipReason: 'delivery_disabled' } }]);
    expect(sent).toEqual([]);
  });

  it('only moves the entry on when the instant’s run exists already', async () => {
    const { log, sent, pass } = world({ claim: 'run-exists' });
    expect(await pass()).toMatchObject({ fired: 0, runs: [] });
    expect(log.moves.map((move) => move.upcoming)).toEqual([ahead]);
    expect([sent, log.finished]).toEqual([[], []]);
  });

  it('does nothing more when another pass moved the entry first', async () => {
    const { log, sent, pass } = world({ claim: 'entry-moved' });
    expect(await pass()).toMatchObject({ fired: 0, runs: [] });
    expect([log.moves, sent]).toEqual([[], []]);
  });

  it('sends no job and counts nothing queued when every recipient is skipped', async () => {
    const { log, sent, pass } = world({ users: [consoleUser(1, { active: false })] });
    expect(await pass()).toMatchObject({ fired: 1, queued: 0, skipped: 2 });
    expect(sent).toEqual([]);
    expect(log.finished.map((finish) => finish.counts)).toEqual([{ queued: 0, skipped: 2 }]);
  });

  it('counts nothing queued for a run whose lease was taken before it finished', async () => {
    const { pass } = world({ leaseKept: false });
    expect(await pass()).toMatchObject({ fired: 1, queued: 0 });
  });

  it('writes the deliveries of a run of 25 recipients in the claim itself', async () => {
    const { log, sent, pass } = world({ rows: userRows(25) });
    await pass();
    expect(log.claims[0]?.deliveries).toHaveLength(25);
    expect(log.pages).toEqual([]);
    expect(sent.flat()).toHaveLength(25);
  });

  it('claims a run of 26 recipients alone and delivers them after the claim', async () => {
    const { log, sent, pass } = world({ rows: userRows(26) });
    expect(await pass()).toMatchObject({ fired: 1, queued: 26 });
    expect(log.claims[0]?.deliveries).toEqual([]);
    expect(log.pages).toEqual([{ after: undefined, limit: 100 }]);
    expect(sent.map((jobs) => jobs.length)).toEqual([26]);
  });

  it('delivers a first page that is not the last page by page, saving progress under a renewed lease', async () => {
    const { log, pass } = world({ rows: userRows(5) });
    await pass({ pageSize: 2, leaseMs: 30_000, clock: stoppedClock(now + 7_000) });
    expect(log.claims[0]?.deliveries).toEqual([]);
    expect(log.put.map((deliveries) => deliveries.length)).toEqual([2, 2, 1]);
    expect(log.saved).toEqual([
      { cursor: 'R#U#0002', counts: { ...noRecipients(), queued: 2 }, renewed: now + 37_000 },
      { cursor: 'R#U#0004', counts: { ...noRecipients(), queued: 4 }, renewed: now + 37_000 },
    ]);
    expect(log.finished).toEqual([{ ref: runRef, counts: { ...noRecipients(), queued: 5 } }]);
  });

  it('counts a page of skipped recipients as skipped, sending nothing for it', async () => {
    const { log, sent, pass } = world({
      rows: userRows(26),
      users: userRows(20).map((_, i) => consoleUser(i + 1)),
    });
    expect(await pass({ pageSize: 20 })).toMatchObject({ queued: 20, skipped: 6 });
    expect(sent.map((jobs) => jobs.length)).toEqual([20]);
    expect(log.finished).toEqual([{ ref: runRef, counts: { ...noRecipients(), queued: 20, skipped: 6 } }]);
  });

  it('stops delivering when the lease was taken over between pages', async () => {
    const { log, sent, pass } = world({ rows: userRows(5), leaseKept: false });
    expect(await pass({ pageSize: 2 })).toMatchObject({ fired: 1, queued: 0 });
    expect(sent.map((jobs) => jobs.length)).toEqual([2]);
    expect(log.finished).toEqual([]);
  });

  it('sends no job of a page once the notification is found deleted', async () => {
    const { log, sent, pass } = world({ rows: userRows(30), live: false });
    expect(await pass()).toMatchObject({ fired: 1, queued: 0 });
    expect(log.put).toHaveLength(1);
    expect([sent, log.saved, log.finished]).toEqual([[], [], []]);
  });
});

/** A deadline with plenty of time for the first `checks` checks, then five seconds left: too little to start more. */
function deadlineAfter(checks: number): Deadline {
  let left = checks;
  return { remainingMs: () => (left-- > 0 ? 5_001 : 5_000) };
}

/** A clock whose time moves on only by what a pass waits for, recording each wait. */
function sleepingClock() {
  let instant = now;
  const sleeps: number[] = [];
  const clock: Clock = {
    now: () => instant,
    async sleep(ms) {
      sleeps.push(ms);
      instant += ms;
    },
  };
  return { clock, sleeps };
}

describe('a dispatch pass over many entries', () => {
  const notifications = [700, 701, 702].map((id) => dailyNotification({ id }));

  it('starts no entry with five seconds or less left, leaving it to a later pass', async () => {
    const { log, pass } = world({ notifications });
    expect(await pass({ concurrency: 1, deadline: deadlineAfter(2) })).toMatchObject({ due: 3, fired: 2 });
    expect(log.firstPageLimits).toHaveLength(2);
  });

  it('stops a run between pages when time runs short, its lease ended so that the next pass resumes it at once', async () => {
    const { log, sent, pass } = world({ rows: userRows(5) });
    // One check to start the entry, one before the first page.
    const summary = await pass({ pageSize: 2, deadline: deadlineAfter(2) });
    expect(summary).toMatchObject({ fired: 1, unfinished: 1, queued: 0 });
    expect(sent.map((jobs) => jobs.length)).toEqual([2]);
    expect(log.released).toEqual([{ ref: runRef, at: now }]);
    expect(log.finished).toEqual([]);
  });

  it('reads each dashboard and each console user once per pass', async () => {
    const other = dailyNotification({ id: 703, dashboardId: 71 });
    const { log, pass } = world({ notifications: [...notifications, other] });
    expect(await pass({ concurrency: 1 })).toMatchObject({ fired: 4, queued: 8 });
    expect(log.dashboardReads).toEqual([70, 71]);
    expect(log.userReads).toEqual([[1, 2]]);
  });

  it('reads again the users of a failed read, failing only the entry that needed them', async () => {
    const { errors, log, pass } = world({ notifications, failingUserReads: 1 });
    expect(await pass({ concurrency: 1 })).toMatchObject({ fired: 2, failed: 1, queued: 4 });
    expect(errors).toEqual([
      { error: new Error('throttled'), entry: entryOf(notifications[0] as Notification) },
    ]);
    expect(log.userReads).toEqual([
      [1, 2],
      [1, 2],
    ]);
  });

  it('works on at most 8 entries at once unless told otherwise', async () => {
    const many = Array.from({ length: 10 }, (_, i) => dailyNotification({ id: 800 + i }));
    const inFlight = { now: 0, most: 0 };
    const { store, pass } = world({ notifications: many });
    const read = store.dueNotification.bind(store);
    store.dueNotification = async (ref, limit) => {
      inFlight.most = Math.max(inFlight.most, ++inFlight.now);
      await new Promise((resolve) => setImmediate(resolve));
      inFlight.now--;
      return read(ref, limit);
    };
    expect(await pass()).toMatchObject({ fired: 10 });
    expect(inFlight.most).toBe(8);
    inFlight.most = 0;
    await pass({ concurrency: 3 });
    expect(inFlight.most).toBe(3);
  });

  it('starts at most the given number of entries a second in each shard', async () => {
    const { clock, sleeps } = sleepingClock();
    const entries = notifications.map((n, i) => entryOf(n, { shard: i === 2 ? 1 : 0 }));
    const { pass } = world({ notifications, entries });
    await pass({ concurrency: 1, maxPerSecondPerShard: 4, clock });
    expect(sleeps).toEqual([250]);
  });

  it('paces no entry read without a shard', async () => {
    const { clock, sleeps } = sleepingClock();
    const { pass } = world({ notifications });
    await pass({ concurrency: 1, maxPerSecondPerShard: 4, clock });
    expect(sleeps).toEqual([]);
  });
});

describe('a dispatch pass settling a schedule-change mark', () => {
  const mark: DueEntry = {
    kind: 'change',
    deploymentId: 7,
    notificationId: 700,
    dueKey: 'mark#1',
    dueAt: nine - DAY,
  };

  it('stores the schedule state its writer left unstored, from the moment of the change, and clears the mark', async () => {
    const { log, pass } = world({ entries: [mark], changeKey: 'mark#1', notificationVersion: 2 });
    await pass();
    expect(log.schedules).toEqual([
      {
        state: schedulePlanner.planSchedule(dailyNotification(), nine - DAY - 1),
        signature: scheduleSignature(dailyNotification()),
        scheduleVersion: 2,
      },
    ]);
    expect(log.schedules[0]?.state.upcoming[0]).toBe(nine - DAY);
    expect(log.cleared).toEqual(['mark#1']);
  });

  it('stores the state of a notification without a schedule entry', async () => {
    const { log, pass } = world({ entries: [mark], changeKey: 'mark#1', schedule: null });
    await pass();
    expect(log.schedules).toHaveLength(1);
  });

  it('only clears the mark when the schedule state is stored already', async () => {
    const { log, pass } = world({ entries: [mark], changeKey: 'mark#1', notificationVersion: 1 });
    await pass();
    expect(log.schedules).toEqual([]);
    expect(log.cleared).toEqual(['mark#1']);
  });

  it('leaves a mark alone that is no longer the notification’s', async () => {
    const { log, pass } = world({ entries: [mark], changeKey: 'mark#2', notificationVersion: 2 });
    await pass();
    expect([log.schedules, log.cleared]).toEqual([[], []]);
  });

  it('leaves the mark of a deleted notification alone', async () => {
    const { log, pass } = world({ entries: [mark], notifications: [] });
    await pass();
    expect([log.schedules, log.cleared]).toEqual([[], []]);
  });
});

describe('a dispatch pass resuming a run', () => {
  const entry: DueEntry = {
    kind: 'run',
    deploymentId: 7,
    notificationId: 700,
    runId: runRef.runId,
    dueKey: `2026-11-24T09:00:00.000Z#RUN#7#700#${runRef.runId}`,
  };
  const progress = (queued: number): RunProgress => ({
    run: dailyRun({ recipients: { ...noRecipients(), queued } }),
    cursor: `R#U#${String(queued).padStart(4, '0')}`,
  });

  it('takes over the run under a new lease and delivers from where it stopped', async () => {
    const { log, sent, pass } = world({ entries: [entry], rows: userRows(5), takeOver: progress(3) });
    expect(await pass({ leaseMs: 10_000 })).toMatchObject({ resumed: 1, fired: 0, queued: 5 });
    expect(log.takenOver).toEqual([{ ref: runRef, at: now, lease: { owner, until: now + 10_000 } }]);
    expect(log.pages).toEqual([{ after: 'R#U#0003', limit: 100 }]);
    expect(recipientsOf(sent)).toEqual([4, 5]);
    expect(log.finished).toEqual([{ ref: runRef, counts: { ...noRecipients(), queued: 5 } }]);
  });

  it('finishes a run stopped after its last page without writing anything more', async () => {
    const { log, sent, pass } = world({ entries: [entry], rows: userRows(3), takeOver: progress(3) });
    await pass();
    expect([log.put, sent]).toEqual([[], []]);
    expect(log.finished).toEqual([{ ref: runRef, counts: { ...noRecipients(), queued: 3 } }]);
  });

  it('leaves a run alone that is finished or held by another pass', async () => {
    const { log, pass } = world({ entries: [entry] });
    expect(await pass()).toMatchObject({ resumed: 0 });
    expect([log.pages, log.finished]).toEqual([[], []]);
  });

  it('finishes with what was queued a run whose notification is gone', async () => {
    const { log, sent, pass } = world({ entries: [entry], notifications: [], takeOver: progress(3) });
    expect(await pass()).toMatchObject({ resumed: 1 });
    expect(log.finished).toEqual([{ ref: runRef, counts: progress(3).run.recipients }]);
    expect(sent).toEqual([]);
  });

  it('finishes with what was queued a run whose dashboard is gone', async () => {
    const { log, pass } = world({ entries: [entry], dashboard: undefined, takeOver: progress(3) });
    await pass();
    expect(log.finished).toEqual([{ ref: runRef, counts: progress(3).run.recipients }]);
    expect(log.pages).toEqual([]);
  });
});

describe('sendNow', () => {
  const options = { now, randomHex, minIntervalMs: 5 * MINUTE, audit: testAudit };

  it('makes a manual run at once and delivers it, whatever the schedule and delivery settings', async () => {
    const notification = dailyNotification({ isEnabled: false, notificationEnabled: false });
    const { log, sent, store, sink } = world({ notifications: [notification] });
    const run = await sendNow(store, sink, ref, options);
    expect(run).toEqual({
      runId: manualRunId(now, 'abababab'),
      deploymentId: 7,
      notificationId: 700,
      trigger: 'manual',
      scheduledFor: new Date(now).toISOString(),
      createdAt: new Date(now).toISOString(),
      status: 'dispatched',
      skipReason: null,
      recipients: { ...noRecipients(), queued: 2 },
      completedAt: null,
    });
    expect(log.manualClaims).toMatchObject([
      { lease: { owner, until: now + 2 * MINUTE }, previousNoLaterThan: now - 5 * MINUTE },
    ]);
    expect(recipientsOf(sent)).toEqual([1, 2]);
  });

  it('delivers only the first page and hands the rest over to the next pass under a lease that has ended', async () => {
    const { log, sent, store, sink } = world({ rows: userRows(5) });
    const run = await sendNow(store, sink, ref, { ...options, pageSize: 2 });
    expect(run).toMatchObject({ status: 'dispatching', recipients: { queued: 2 } });
    expect(sent.map((jobs) => jobs.length)).toEqual([2]);
    expect(log.saved).toMatchObject([{ cursor: 'R#U#0002', renewed: now }]);
  });

  it('answers the run as far as it got when another pass took its lease', async () => {
    for (const rows of [userRows(2), userRows(5)]) {
      const { store, sink } = world({ rows, leaseKept: false });
      const run = await sendNow(store, sink, ref, { ...options, pageSize: 2 });
      expect(run).toMatchObject({ trigger: 'manual', status: 'dispatching', recipients: { queued: 2 } });
    }
  });

  it('records a skipped run and sends nothing when the dashboard is unpublished', async () => {
    const { log, sent, store, sink } = world({ dashboard: salesDashboard({ published: false }) });
    const run = await sendNow(store, sink, ref, options);
    expect(run).toMatchObject({ status: 'skipped', skipReason: 'dashboard_unavailable' });
    expect(log.manualClaims).toMatchObject([{ lease: undefined }]);
    expect([sent, log.pages]).toEqual([[], []]);
  });

  it('is not found for a notification that does not exist, claiming nothing', async () => {
    const { log, store, sink } = world({ notifications: [] });
    await expect(sendNow(store, sink, ref, options)).rejects.toThrow(NotFoundError);
    expect(log.manualClaims).toEqual([]);
  });

  it('is not found when a delete overtook the claim', async () => {
    const { store, sink } = world({ manualClaim: { created: false, reason: 'gone' } });
    await expect(sendNow(store, sink, ref, options)).rejects.toThrow(NotFoundError);
  });

  it('is not found, sending nothing, when a delete comes while the first page is written', async () => {
    const { sent, store, sink } = world({ live: false });
    await expect(sendNow(store, sink, ref, options)).rejects.toThrow(NotFoundError);
    expect(sent).toEqual([]);
  });

  it('refuses a send-now too soon after the previous one, saying when to send again', async () => {
    const { store, sink } = world({
      manualClaim: { created: false, reason: 'too_soon', previousAt: now - MINUTE },
    });
    const refusal = sendNow(store, sink, ref, options);
    await expect(refusal).rejects.toThrow('At most one send-now of a notification every 300 s');
    await expect(refusal).rejects.toMatchObject({ retryAfterSeconds: 4 * 60 });
  });

  it('counts a previous send-now stamped after the request as made just now', async () => {
    const { store, sink } = world({
      manualClaim: { created: false, reason: 'too_soon', previousAt: now + MINUTE },
    });
    await expect(sendNow(store, sink, ref, options)).rejects.toMatchObject({ retryAfterSeconds: 5 * 60 });
  });

  it('refuses a send-now while the previous one is still dispatching', async () => {
    const { store, sink } = world({ manualClaim: { created: false, reason: 'dispatching' } });
    const refusal = sendNow(store, sink, ref, options);
    await expect(refusal).rejects.toThrow(TooManyRequestsError);
    await expect(refusal).rejects.toMatchObject({
      message: expect.stringContaining('still dispatching'),
      retryAfterSeconds: 5 * 60,
    });
  });
});
