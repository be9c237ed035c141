import type { ConsoleUser, Dashboard } from '#lib/domain/entities';
import type { Notification } from '#lib/domain/notification';
import type { Principal } from '#lib/domain/principal';

/** The domain values the in-memory domain tests share: dashboard 70 of deployment 7 and its daily notification 700. */

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
  ...overrides,
});

const admin: ConsoleUser = { id: 1, email: 'a@x.example', username: 'a', role: 'admin', active: true };
/** A caller of each kind the service knows, admin or not, active or not. */
export const principals = {
  admin: { kind: 'console', user: admin },
  adminByJwt: { kind: 'console', user: admin },
  member: { kind: 'console', user: { ...admin, role: 'member' } },
  deactivatedAdmin: { kind: 'console', user: { ...admin, active: false } },
  screenshot: { kind: 'platform', session: 'screenshot' },
  creator: { kind: 'platform', session: 'creator' },
  acme: { kind: 'embed', tenant: 'acme', externalId: 'alice' },
  globex: { kind: 'embed', tenant: 'globex', externalId: 'gina' },
} satisfies Record<string, Principal>;
