import type { ConsoleUser, Dashboard } from '#lib/domain/entities';
import type { Notification } from '#lib/domain/notification';

/**
 * The domain values the in-memory domain tests share: dashboard 70 of deployment 7, its daily
 * notification 700, and console users named by their id.
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
