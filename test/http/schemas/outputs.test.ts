import { describe, expect, it } from 'vitest';
import type * as z from 'zod/mini';
import type { DashboardEmbeddingDto, EmbeddedDashboardDto } from '#lib/domain/embedding/embedding';
import { toNotificationDto } from '#lib/domain/notifications/notification';
import type { Page } from '#lib/domain/paging';
import type { AddRecipientsResult, RecipientOutput } from '#lib/domain/recipients/recipients';
import type { DeliveryDto, RunDto } from '#lib/domain/runs/runs';
import type { SchedulePreview } from '#lib/domain/schedules/schedule-preview';
import type { UnsubscribeAnswer } from '#lib/domain/unsubscribe/unsubscribe';
import { check } from '#lib/http/schemas/common';
import { dailyNotification } from '#test/support/domain-fixtures';
import { freshForEachTest } from '#test/support/fresh-module';

/**
 * The answer schemas the API description is built from take each answer whole: every field the
 * service sends is described. (The HTTP tests hold real answers to the description; these need no table.)
 */

// Loaded in each test: the schemas are built when their modules load.
const recipients = freshForEachTest(() => import('#lib/http/schemas/recipient-outputs'));
const notifications = freshForEachTest(() => import('#lib/http/schemas/notification-outputs'));
const embedding = freshForEachTest(() => import('#lib/http/schemas/embedding-outputs'));
const runs = freshForEachTest(() => import('#lib/http/schemas/run-outputs'));
const deliveries = freshForEachTest(() => import('#lib/http/schemas/delivery-outputs'));
const schedules = freshForEachTest(() => import('#lib/http/schemas/schedule-outputs'));

const NEXT_RUN = Date.UTC(2026, 10, 25, 9);

const user: RecipientOutput = { type: 'USER', userId: 11, email: 'ada@example.com', username: 'ada' };
const embedUser: RecipientOutput = {
  type: 'EMBED_USER',
  embedTenantName: 'acme',
  externalId: 'alice',
  embedUserId: 21,
  email: 'alice@acme.example',
};

const added: AddRecipientsResult = {
  createdRecipients: [user],
  updatedRecipients: [embedUser],
  unchangedRecipients: [],
};

const recipientPage: Page<RecipientOutput> = {
  items: [user, embedUser],
  pageInfo: { startCursor: 'c1', endCursor: 'c2', hasNextPage: true, hasPreviousPage: false },
};

/** Notification 700 as its answer shows it, its next 09:00 still to come. */
const notification = toNotificationDto(
  {
    notification: dailyNotification(),
    schedule: { humanReadableSchedule: 'At 09:00', upcoming: [NEXT_RUN] },
  },
  NEXT_RUN - 3_600_000,
);

const run: RunDto = {
  runId: '20261125T090000000Z-s',
  deploymentId: 7,
  notificationId: 700,
  trigger: 'schedule',
  scheduledFor: '2026-11-25T09:00:00.000Z',
  createdAt: '2026-11-25T09:00:01.000Z',
  status: 'completed',
  skipReason: null,
  recipients: { queued: 2, skipped: 0, delivered: 2, failed: 0 },
  completedAt: '2026-11-25T09:01:00.000Z',
};

const delivery: DeliveryDto = {
  recipient: embedUser,
  status: 'delivered',
  reason: null,
  jobId: 'job-1',
  attempts: 1,
  error: null,
  updatedAt: '2026-11-25T09:01:00.000Z',
};

const preview: SchedulePreview = {
  cronExpression: '0 9 * * *',
  humanReadableSchedule: 'At 09:00',
  timezone: 'UTC',
  nextRuns: ['2026-11-25T09:00:00Z'],
};

const embedded: EmbeddedDashboardDto = {
  id: 70,
  publicId: 'sales',
  dashboardId: 70,
  deploymentId: 7,
  title: 'Sales',
  allowEmbed: true,
};
const embeddingSwitch: DashboardEmbeddingDto = { publicId: 'sales', allowEmbed: true };
const unsubscribed: UnsubscribeAnswer = { unsubscribed: true, deploymentId: 7, notificationId: 700 };

const answers: [string, () => z.ZodMiniType, unknown][] = [
  ['add-recipients', () => recipients().addRecipientsOutput, added],
  ['a recipient page', () => recipients().recipientPageOutput, recipientPage],
  ['a notification', () => notifications().notificationOutput, notification],
  ['a run', () => runs().runOutput, run],
  ['a delivery', () => runs().deliveryOutput, delivery],
  ['a schedule preview', () => schedules().schedulePreviewOutput, preview],
  ['an embedded dashboard', () => embedding().embeddedDashboardOutput, embedded],
  ["a dashboard's embedding", () => embedding().dashboardEmbeddingOutput, embeddingSwitch],
  ['unsubscribe', () => deliveries().unsubscribeOutput, unsubscribed],
];

describe('answer schemas', () => {
  it.each(answers)('describe %s answer whole', (_, schema, answer) => {
    expect(check(schema(), answer)).toEqual({ value: answer, problems: [] });
  });
});
