import { describe, expect, it } from 'vitest';
import type { DueEntry, DueNotification, RecipientsPage } from '#lib/domain/dispatch/dispatch-ports';
import {
  CLAIM_DELIVERIES_MAX,
  decideEntry,
  type FireTime,
  planRun,
} from '#lib/domain/dispatch/fire-decision';
import type { Notification } from '#lib/domain/notifications/notification';
import type { RecipientRow } from '#lib/domain/runs/runs';
import { schedulePlanner } from '#lib/domain/schedules/schedule-planning';
import { dailyNotification, salesDashboard } from '#test/support/domain-fixtures';

/**
 * What a pass does with a due notification, decided without storage: the entry of a daily 09:00 UTC
 * notification read 20 s after today's instant, with a grace of 10 minutes, and the run of an instant
 * that fires.
 */

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;
const nine = Date.UTC(2026, 10, 24, 9);
const at: FireTime = { now: nine + 20_000, misfireGraceMinutes: 10 };
/** The four 09:00 instants after today's, which the entry moves on to. */
const ahead = [1, 2, 3, 4].map((days) => nine + days * DAY);

const entry = (dueAt = nine): DueEntry & { kind: 'notification' } => ({
  kind: 'notification',
  deploymentId: 7,
  notificationId: 700,
  dueKey: 'due#700',
  dueAt,
});

/** Step 1's read: the notification (null: deleted) at schedule version 1, its entry under `due#700`, one recipient. */
function read(
  notification: Notification | null = dailyNotification(),
  more: { notificationVersion?: number; dueKey?: string | null } = {},
): DueNotification {
  return {
    notification: notification
      ? {
          value: notification,
          scheduleVersion: more.notificationVersion ?? 1,
          changeKey: undefined,
        }
      : undefined,
    schedule:
      more.dueKey === null
        ? undefined
        : { upcoming: [nine, nine + DAY], scheduleVersion: 1, dueKey: more.dueKey ?? 'due#700' },
    firstPage: page(1),
  };
}

function page(count: number, last?: string): RecipientsPage {
  const rows = Array.from(
    { length: count },
    (_, i): RecipientRow => ({ key: `R#U#${i + 1}`, recipient: { type: 'USER', userId: i + 1 } }),
  );
  return { rows, last };
}

describe('the decision on a due notification', () => {
  it('fires the latest instant at or before now and moves the entry on to the instants ahead', () => {
    expect(decideEntry(entry(), read(), schedulePlanner, at)).toEqual({
      action: 'fire',
      notification: dailyNotification(),
      instant: nine,
      move: { dueKey: 'due#700', scheduleVersion: 1, upcoming: ahead },
    });
  });

  it('does nothing when the entry read is no longer the notification’s, or it has none', () => {
    expect(
      decideEntry(entry(), read(dailyNotification(), { dueKey: 'due#other' }), schedulePlanner, at),
    ).toEqual({
      action: 'none',
      because: 'entry-moved',
    });
    expect(decideEntry(entry(), read(dailyNotification(), { dueKey: null }), schedulePlanner, at)).toEqual({
      action: 'none',
      because: 'entry-moved',
    });
  });

  it('takes the entry of a deleted notification out of the index', () => {
    expect(decideEntry(entry(), read(null), schedulePlanner, at)).toEqual({
      action: 'move',
      because: 'deleted',
      move: { dueKey: 'due#700', scheduleVersion: 1, upcoming: [] },
    });
  });

  it('leaves an entry alone whose notification has a later schedule written', () => {
    const rewritten = read(dailyNotification(), { notificationVersion: 2 });
    expect(decideEntry(entry(), rewritten, schedulePlanner, at)).toEqual({
      action: 'none',
      because: 'schedule-rewritten',
    });
  });

  it('takes a disabled notification’s entry out of the index without firing', () => {
    const disabled = read(dailyNotification({ isEnabled: false }));
    expect(decideEntry(entry(), disabled, schedulePlanner, at)).toEqual({
      action: 'move',
      because: 'disabled',
      move: { dueKey: 'due#700', scheduleVersion: 1, upcoming: [] },
    });
  });

  it('fires an instant as late as the grace, and misses one later', () => {
    const atGrace = { ...at, now: nine + 10 * MINUTE };
    expect(decideEntry(entry(), read(), schedulePlanner, atGrace)).toMatchObject({
      action: 'fire',
      instant: nine,
    });
    const pastGrace = { ...at, now: nine + 10 * MINUTE + 1 };
    expect(decideEntry(entry(), read(), schedulePlanner, pastGrace)).toEqual({
      action: 'move',
      because: 'missed',
      move: { dueKey: 'due#700', scheduleVersion: 1, upcoming: ahead },
    });
  });

  it('fires no instant earlier than the entry’s own', () => {
    expect(decideEntry(entry(nine + 1), read(), schedulePlanner, at)).toMatchObject({
      action: 'move',
      because: 'missed',
    });
  });

  it('misses an entry whose schedule has no instant at or before now', () => {
    const never = { ...schedulePlanner, latestFiringAtOrBefore: () => undefined };
    expect(decideEntry(entry(), read(), never, at)).toMatchObject({ action: 'move', because: 'missed' });
  });

  it('fires nothing while suspended, or paused with no end', () => {
    const suspended = dailyNotification({ hold: { pause: null, suspended: true } });
    expect(decideEntry(entry(), read(suspended), schedulePlanner, at)).toEqual({
      action: 'move',
      because: 'held',
      move: { dueKey: 'due#700', scheduleVersion: 1, upcoming: [] },
    });
    const paused = dailyNotification({ hold: { pause: { until: null, reason: null }, suspended: false } });
    expect(decideEntry(entry(), read(paused), schedulePlanner, at)).toMatchObject({
      action: 'move',
      because: 'held',
    });
  });

  it('fires no instant before a pause’s end, and the instant the pause ends at', () => {
    const pausedUntil = (until: number) =>
      read(dailyNotification({ hold: { pause: { until, reason: null }, suspended: false } }));
    expect(decideEntry(entry(), pausedUntil(nine + 1), schedulePlanner, at)).toMatchObject({
      action: 'move',
      because: 'held',
    });
    expect(decideEntry(entry(), pausedUntil(nine), schedulePlanner, at)).toMatchObject({
      action: 'fire',
      instant: nine,
    });
  });
});

describe('the run of an instant that fires', () => {
  const notification = dailyNotification();

  it('delivers, with a small first page written in the claim', () => {
    expect(planRun(notification, salesDashboard(), true, page(1))).toEqual({
      skipReason: null,
      deliveriesInClaim: true,
    });
  });

  it('writes in the claim a page of at most CLAIM_DELIVERIES_MAX rows with nothing after it', () => {
    expect(planRun(notification, salesDashboard(), true, page(CLAIM_DELIVERIES_MAX))).toEqual({
      skipReason: null,
      deliveriesInClaim: true,
    });
    expect(planRun(notification, salesDashboard(), true, page(CLAIM_DELIVERIES_MAX + 1))).toEqual({
      skipReason: null,
      deliveriesInClaim: false,
    });
    expect(planRun(notification, salesDashboard(), true, page(1, 'R#U#1'))).toEqual({
      skipReason: null,
      deliveriesInClaim: false,
    });
  });

  it('is skipped as orphaned when its owner is not active, whatever else holds', () => {
    expect(planRun(notification, salesDashboard(), false, page(1))).toEqual({
      skipReason: 'owner_inactive',
      deliveriesInClaim: false,
    });
  });

  it('is skipped when its dashboard is gone or unpublished', () => {
    expect(planRun(notification, undefined, true, page(1))).toEqual({
      skipReason: 'dashboard_unavailable',
      deliveriesInClaim: false,
    });
    expect(planRun(notification, salesDashboard({ published: false }), true, page(1))).toEqual({
      skipReason: 'dashboard_unavailable',
      deliveriesInClaim: false,
    });
  });

  it('is skipped when the notification’s delivery is disabled', () => {
    const silent = dailyNotification({ notificationEnabled: false });
    expect(planRun(silent, salesDashboard(), true, page(1))).toEqual({
      skipReason: 'delivery_disabled',
      deliveriesInClaim: false,
    });
  });
});
