import * as z from 'zod/mini';
import { notificationStatuses } from '#lib/domain/governance/governance';
import type { NotificationDto, NotificationOwner } from '#lib/domain/notifications/notification';
import { notificationFormats } from '#lib/domain/notifications/notification-fields';
import type { Page } from '#lib/domain/paging';
import { type DescribesAll, idOutput } from '#lib/http/schemas/common';
import {
  dashboardFilterInput,
  dashboardMemberSwitcherInput,
  dashboardTimeGrainInput,
} from '#lib/http/schemas/notifications';
import { pageOf } from '#lib/http/schemas/paging';

/**
 * What the operations answer, as zod schemas. The handlers do not check their answers against them
 * (that would cost every request); the API description is built from them and the HTTP tests check
 * every answer against that description, so they cannot drift from what the code returns (a field
 * the code adds without adding it here fails them). Each `satisfies` the domain type it describes: a
 * field of the type missing here, or of another type, fails the typecheck.
 */

export const notificationOwnerOutput = z.union([
  z.object({ type: z.literal('USER'), userId: idOutput(), email: z.string() }),
  z.object({
    type: z.literal('EMBED_USER'),
    embedTenantName: z.string(),
    externalId: z.string(),
    embedUserId: idOutput(),
  }),
]) satisfies z.ZodMiniType<NotificationOwner>;
true satisfies DescribesAll<NotificationOwner, typeof notificationOwnerOutput>;

export const notificationOutput = z.object({
  id: idOutput(),
  dashboardId: idOutput(),
  deploymentId: idOutput(),
  cronExpression: z.string(),
  timezone: z.string(),
  isEnabled: z.boolean(),
  humanReadableSchedule: z.string(),
  notificationEnabled: z.boolean(),
  notificationFormat: z.enum(notificationFormats),
  filters: z.nullable(z.array(dashboardFilterInput)),
  timeGrains: z.nullable(z.array(dashboardTimeGrainInput)),
  memberSwitchers: z.nullable(z.array(dashboardMemberSwitcherInput)),
  notificationAiSummary: z.boolean(),
  /** The first firing instant after the answer was made, with seconds; null unless active (or paused until a time: the first at or after it). */
  nextRunAt: z.nullable(z.string()),
  /** The first that holds of orphaned, suspended, paused, disabled (isEnabled false), active. */
  status: z.enum(notificationStatuses),
  /** The pause's reason while paused; `consecutive_failed_runs` while suspended; `owner_inactive` while orphaned. */
  statusReason: z.nullable(z.string()),
  /** When a running pause ends by itself; null without one. */
  pausedUntil: z.nullable(z.string()),
  owner: z.nullable(notificationOwnerOutput),
}) satisfies z.ZodMiniType<NotificationDto>;

export const notificationPageOutput = pageOf(notificationOutput) satisfies z.ZodMiniType<
  Page<NotificationDto>
>;
