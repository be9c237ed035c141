import { noHold } from '#lib/domain/governance/governance';
import type { Notification } from '#lib/domain/notifications/notification';

/**
 * The entities the codec tests encode and decode: with the table (test/store/codecs.test.ts) and
 * without it (test/store/codec-shapes.test.ts).
 */

export const sampleNotification: Notification = {
  id: 901,
  deploymentId: 9,
  dashboardId: 90,
  scheduleType: 'WEEKLY',
  minute: 15,
  hour: 8,
  dayOfWeek: 1,
  timezone: 'Europe/Berlin',
  isEnabled: true,
  notificationEnabled: false,
  notificationFormat: 'pdf',
  // Numbers DynamoDB could not hold, an empty key: kept exactly through the JSON text.
  filters: [
    { member: 'Orders.total', operator: 'greater_than', value: 1e300 },
    { member: 'A.b', value: [{ '': [] }] },
  ],
  timeGrains: null,
  memberSwitchers: [{ member: 'Orders.status', selected: 'city' }],
  notificationAiSummary: true,
  owner: null,
  hold: noHold(),
};

/** A scheduled run still dispatching, with its counts. */
export const sampleRun = {
  runId: '20260102T030405006Z',
  deploymentId: 9,
  notificationId: 901,
  trigger: 'schedule',
  scheduledFor: '2026-01-02T03:04:05.006Z',
  createdAt: '2026-01-02T03:04:06.000Z',
  status: 'dispatching',
  skipReason: null,
  recipients: { queued: 2, skipped: 1, delivered: 0, failed: 0 },
  completedAt: null,
} as const;
