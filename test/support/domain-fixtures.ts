import { type AuditAction, type AuditContext, auditEvent, type NewAuditEvent } from '#lib/domain/audit/audit';
import type { ConsoleUser, Dashboard } from '#lib/domain/entities';
import { noHold } from '#lib/domain/governance/governance';
import type { Notification, NotificationRef } from '#lib/domain/notifications/notification';
import type { Principal } from '#lib/domain/principal';
import { noRecipients, type Run, scheduledRunId } from '#lib/domain/runs/runs';

/**
 * The domain values the in-memory domain tests share: dashboard 70 of deployment 7, its daily
 * notification 700 and that notification's run of 2026-11-24 09:00 UTC, console users named by their
 * id, and a caller of each kind.
 */

export const salesDashboard = (overrides: Partial<Dashboard> = {}): Dashboard => ({
  id: 70,
  deploymentId: 7,
  publicId: 'sales',
  title: 'Sales',
  published: true,
  allowEmbed: false,
  sharedWithAllEmbedUsers: false,
  sharedWithTenants: [],
  ...overrides,
});

export const dailyNotification = (overrides: Partial<Notification> = {}): Notification => ({
  id: 700,
  deploymentId: 7,
  dashboardId: 70,
  scheduleType: 'DAILY',
  hour: 9,
  minute: 0,
  timezone: 'UTC',
  isEnabled: true,
  notificationEnabled: true,
  notificationFormat: 'png',
  filters: null,
  timeGrains: null,
  memberSwitchers: null,
  notificationAiSummary: false,
  owner: null,
  hold: noHold(),
  ...overrides,
});

/** An active console user `user<id>` (`user<id>@example.com`). */
export const consoleUser = (id: number, overrides: Partial<ConsoleUser> = {}): ConsoleUser => ({
  id,
  email: `user${id}@example.com`,
  username: `user${id}`,
  role: 'member',
  active: true,
  ...overrides,
});

/** Notification 700's run of 2026-11-24 09:00 UTC, as a dispatcher pass claims it 20 s later. */
export const dailyRun = (overrides: Partial<Run> = {}): Run => ({
  runId: scheduledRunId(Date.UTC(2026, 10, 24, 9)),
  deploymentId: 7,
  notificationId: 700,
  trigger: 'schedule',
  scheduledFor: '2026-11-24T09:00:00.000Z',
  createdAt: '2026-11-24T09:00:20.000Z',
  status: 'dispatching',
  skipReason: null,
  recipients: noRecipients(),
  completedAt: null,
  ...overrides,
});

const admin = consoleUser(1, { role: 'admin' });
/** A caller of each kind the service knows, admin or not, active or not. */
export const principals = {
  admin: { kind: 'console', user: admin, via: 'api_key' },
  adminByJwt: { kind: 'console', user: admin, via: 'console_token' },
  member: { kind: 'console', user: { ...admin, role: 'member' }, via: 'api_key' },
  deactivatedAdmin: { kind: 'console', user: { ...admin, active: false }, via: 'api_key' },
  screenshot: { kind: 'platform', session: 'screenshot' },
  creator: { kind: 'platform', session: 'creator' },
  acme: { kind: 'embed', tenant: 'acme', externalId: 'alice' },
  globex: { kind: 'embed', tenant: 'globex', externalId: 'gina' },
} satisfies Record<string, Principal>;

/** Who the domain and store tests act as, for the audit events their changes record. */
export const testAudit: AuditContext = {
  actor: { type: 'USER', userId: 1, via: 'api_key' },
  requestId: 'test-request',
};
/** An event of `action` on `target`, as a store test's write records it. */
export const testAuditEvent = (target: NotificationRef, action: AuditAction = 'updated'): NewAuditEvent =>
  auditEvent(testAudit, target, action, null, Date.now());
