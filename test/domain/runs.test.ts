import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { ConsoleUser } from '#lib/domain/entities';
import { noHold } from '#lib/domain/governance/governance';
import type { Notification } from '#lib/domain/notifications/notification';
import { noRecipients, type RecipientRow, type Run, scheduledRunId } from '#lib/domain/runs/runs';
import { salesDashboard } from '#test/support/domain-fixtures';
import { freshForEachTest } from '#test/support/fresh-module';

/** Loaded anew in each test: the functions and patterns it defines on import then count as checked by the tests below. */
const runs = freshForEachTest(() => import('#lib/domain/runs/runs'));

const instant = Date.UTC(2026, 10, 24, 9, 15, 0, 123);
const notification: Notification = {
  id: 700,
  deploymentId: 7,
  dashboardId: 70,
  scheduleType: 'DAILY',
  hour: 9,
  minute: 15,
  timezone: 'UTC',
  isEnabled: true,
  notificationEnabled: true,
  notificationFormat: 'pdf',
  filters: [{ member: 'Orders.status', operator: 'equals', value: 'paid' }],
  timeGrains: null,
  memberSwitchers: [{ member: 'Orders.count', selected: 'Orders.total' }],
  notificationAiSummary: true,
  owner: null,
  hold: noHold(),
};
const dashboard = salesDashboard({ sharedWithTenants: ['acme'] });
const run: Run = {
  runId: scheduledRunId(instant),
  deploymentId: 7,
  notificationId: 700,
  trigger: 'schedule',
  scheduledFor: new Date(instant).toISOString(),
  createdAt: '2026-11-24T09:15:01.000Z',
  status: 'dispatching',
  skipReason: null,
  recipients: noRecipients(),
  completedAt: null,
};

describe('run ids', () => {
  it('start with their instant, so that they sort by it', () => {
    expect(runs().runIdFloor(instant)).toBe('20261124T091500123Z');
    expect(runs().scheduledRunId(instant)).toBe('20261124T091500123Z-s');
    expect(runs().manualRunId(instant, '0123abcd')).toBe('20261124T091500123Z-m0123abcd');
    expect(runs().testRunId(instant, '0123abcd')).toBe('20261124T091500123Z-t0123abcd');
  });

  it('are recognized whole, and nothing else is', () => {
    for (const id of [
      runs().scheduledRunId(instant),
      runs().manualRunId(instant, 'deadbeef'),
      runs().testRunId(instant, '00000000'),
    ]) {
      expect(runs().RUN_ID_PATTERN.test(id)).toBe(true);
    }
    for (const id of [
      '20261124T091500123Z',
      '20261124T091500123Z-x',
      `x${runs().scheduledRunId(instant)}`,
      '20261124T091500123Z-mabc',
    ]) {
      expect(runs().RUN_ID_PATTERN.test(id)).toBe(false);
    }
  });
});

describe('settledStatus', () => {
  const counts = (queued: number, delivered: number, failed: number) => ({
    queued,
    skipped: 0,
    delivered,
    failed,
  });

  it('keeps a run being written or skipped as it is', () => {
    expect(runs().settledStatus({ status: 'dispatching', recipients: counts(1, 1, 0) })).toBe('dispatching');
    expect(runs().settledStatus({ status: 'skipped', recipients: counts(0, 0, 0) })).toBe('skipped');
  });

  it('completes a dispatched run once every queued delivery has an outcome, with failures if any failed', () => {
    expect(runs().settledStatus({ status: 'dispatched', recipients: counts(3, 1, 1) })).toBe('dispatched');
    expect(runs().settledStatus({ status: 'dispatched', recipients: counts(3, 3, 0) })).toBe('completed');
    expect(runs().settledStatus({ status: 'dispatched', recipients: counts(3, 2, 1) })).toBe(
      'completed_with_failures',
    );
    expect(runs().settledStatus({ status: 'dispatched', recipients: counts(0, 0, 0) })).toBe('completed');
  });

  it('counts a run complete once every outcome is in, with failures or without', () => {
    expect(runs().runStatuses.filter(runs().isComplete)).toEqual(['completed', 'completed_with_failures']);
  });
});

describe('a run’s answer', () => {
  it('is the run as stored, with no recipient counted until its deliveries are', () => {
    expect(runs().toRunDto(run)).toBe(run);
    expect(runs().noRecipients()).toEqual({ queued: 0, skipped: 0, delivered: 0, failed: 0 });
  });
});

describe('runSkipReason', () => {
  it('skips a run whose dashboard is gone or unpublished, and a scheduled one whose delivery is off', () => {
    expect(runs().runSkipReason('schedule', notification, dashboard)).toBeNull();
    expect(runs().runSkipReason('schedule', notification, undefined)).toBe('dashboard_unavailable');
    expect(runs().runSkipReason('manual', notification, { ...dashboard, published: false })).toBe(
      'dashboard_unavailable',
    );
    const off = { ...notification, notificationEnabled: false };
    expect(runs().runSkipReason('schedule', off, dashboard)).toBe('delivery_disabled');
    expect(runs().runSkipReason('manual', off, dashboard)).toBeNull();
    expect(runs().runSkipReason('test', off, dashboard)).toBeNull();
  });
});

describe('decideDeliveries', () => {
  const ada: ConsoleUser = { id: 1, email: 'ada@example.com', username: 'ada', role: 'admin', active: true };
  const bob: ConsoleUser = {
    id: 2,
    email: 'bob@example.com',
    username: 'bob',
    role: 'member',
    active: false,
  };
  const users = new Map([
    [1, ada],
    [2, bob],
  ]);
  const embed = (tenant: string) => ({
    type: 'EMBED_USER' as const,
    embedTenantName: tenant,
    externalId: 'Ann',
    normalizedExternalId: 'ann',
    embedUserId: 9,
    email: 'ann@x.example',
    properties: { groups: ['g'] },
  });
  const rows: RecipientRow[] = [
    { key: 'R#U#1', recipient: { type: 'USER' as const, userId: 1 } },
    { key: 'R#U#2', recipient: { type: 'USER' as const, userId: 2 } },
    { key: 'R#U#3', recipient: { type: 'USER' as const, userId: 3 } },
    { key: 'R#E#acme', recipient: embed('acme') },
    { key: 'R#E#globex', recipient: embed('globex') },
  ];
  const deliveryId = (key: string) => createHash('sha256').update(key).digest('hex').slice(0, 32);

  it('queues active console users and embed users of shared tenants, and skips the rest with the reason', () => {
    const { deliveries, jobs } = runs().decideDeliveries(
      run,
      notification,
      dashboard,
      rows,
      users,
      new Set(),
    );
    expect(deliveries.map((d) => [d.status, d.reason, d.attempts])).toEqual([
      ['queued', null, 1],
      ['skipped', 'user_deactivated', 0],
      ['skipped', 'user_deactivated', 0],
      ['queued', null, 1],
      ['skipped', 'not_shared_with_tenant', 0],
    ]);
    expect(deliveries[0]).toEqual({
      recipientKey: 'R#U#1',
      deliveryId: deliveryId('R#U#1'),
      recipient: { type: 'USER', userId: 1, email: 'ada@example.com', username: 'ada' },
      status: 'queued',
      reason: null,
      jobId: `7.700.${run.runId}.${deliveryId('R#U#1')}`,
      attempts: 1,
      error: null,
      updatedAt: run.createdAt,
    });
    // A user who is gone keeps only the id.
    expect(deliveries[2]?.recipient).toEqual({ type: 'USER', userId: 3, email: '', username: '' });
    expect(deliveries[1]?.jobId).toBeNull();
    expect(jobs.map((job) => job.jobId)).toEqual([deliveries[0]?.jobId, deliveries[3]?.jobId]);
    expect(runs().countDeliveries(deliveries)).toEqual({ queued: 2, skipped: 3 });
  });

  it('skips a suppressed address, matched in any case, and leaves another reason to stand', () => {
    // Suppressed: ada (a console user, as lower-cased), ann (the embed users), bob (already deactivated).
    const suppressed = new Set(['ada@example.com', 'ann@x.example', 'bob@example.com']);
    const shouting = new Map(users).set(1, { ...ada, email: 'ADA@Example.com' });
    const { deliveries, jobs } = runs().decideDeliveries(
      run,
      notification,
      dashboard,
      rows,
      shouting,
      suppressed,
    );
    expect(deliveries.map((d) => [d.status, d.reason])).toEqual([
      ['skipped', 'suppressed'],
      ['skipped', 'user_deactivated'],
      ['skipped', 'user_deactivated'],
      ['skipped', 'suppressed'],
      ['skipped', 'not_shared_with_tenant'],
    ]);
    expect(jobs).toEqual([]);
  });

  it('queues every embed user when the dashboard is shared with all of them', () => {
    const everyone = { ...dashboard, sharedWithAllEmbedUsers: true, sharedWithTenants: [] };
    const { deliveries } = runs().decideDeliveries(
      run,
      notification,
      everyone,
      rows.slice(3),
      users,
      new Set(),
    );
    expect(deliveries.map((d) => d.status)).toEqual(['queued', 'queued']);
  });

  it('gives each job what the renderer needs: the dashboard, the notification fields and the recipient with its properties', () => {
    const { jobs } = runs().decideDeliveries(
      run,
      notification,
      dashboard,
      rows.slice(3, 4),
      users,
      new Set(),
    );
    expect(jobs).toEqual([
      {
        jobId: `7.700.${run.runId}.${deliveryId('R#E#acme')}`,
        runId: run.runId,
        deploymentId: 7,
        notificationId: 700,
        scheduledFor: run.scheduledFor,
        attempt: 1,
        dashboard: { id: 70, publicId: 'sales', title: 'Sales' },
        notificationFormat: 'pdf',
        notificationAiSummary: true,
        filters: notification.filters,
        timeGrains: null,
        memberSwitchers: notification.memberSwitchers,
        recipient: {
          type: 'EMBED_USER',
          embedTenantName: 'acme',
          externalId: 'Ann',
          embedUserId: 9,
          email: 'ann@x.example',
          groups: ['g'],
        },
      },
    ]);
  });

  it('answers a delivery without its keys', () => {
    const [delivery] = runs().decideDeliveries(
      run,
      notification,
      dashboard,
      rows.slice(0, 1),
      users,
      new Set(),
    ).deliveries;
    const dto = runs().toDeliveryDto(delivery as NonNullable<typeof delivery>);
    expect(dto).not.toHaveProperty('recipientKey');
    expect(dto).not.toHaveProperty('deliveryId');
    expect(dto).toMatchObject({ status: 'queued', attempts: 1 });
  });
});

describe('parseJobId', () => {
  it('reads back the delivery a job id names', () => {
    const id = deliveryId32();
    expect(runs().parseJobId(`7.700.${run.runId}.${id}`)).toEqual({
      deploymentId: 7,
      notificationId: 700,
      runId: run.runId,
      deliveryId: id,
    });
  });

  it('refuses anything else', () => {
    const id = deliveryId32();
    for (const jobId of [
      `0.700.${run.runId}.${id}`,
      `7.700.${run.runId}.${id.slice(1)}`,
      `7.700.run.${id}`,
      `7.700.${run.runId}.${id}x`,
      `x7.700.${run.runId}.${id}`,
      '',
    ]) {
      expect(runs().parseJobId(jobId)).toBeUndefined();
    }
  });
});

function deliveryId32() {
  return createHash('sha256').update('R#U#1').digest('hex').slice(0, 32);
}
