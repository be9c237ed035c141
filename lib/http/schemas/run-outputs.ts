import * as z from 'zod/mini';
import type { Page } from '#lib/domain/paging';
import {
  type DeliveryDto,
  deliverySkipReasons,
  deliveryStatuses,
  type RunDto,
  runSkipReasons,
  runStatuses,
  runTriggers,
} from '#lib/domain/runs/runs';
import { countOutput, idOutput } from '#lib/http/schemas/common';
import { pageOf } from '#lib/http/schemas/paging';
import { recipientOutput } from '#lib/http/schemas/recipient-outputs';

/** What send-now, a retry and the run and delivery lists answer, for the API description (see notification-outputs.ts). */

const recipientCounts = z.strictObject({
  queued: countOutput(),
  skipped: countOutput(),
  delivered: countOutput(),
  failed: countOutput(),
});

export const runOutput = z.strictObject({
  runId: z.string(),
  deploymentId: idOutput(),
  notificationId: idOutput(),
  trigger: z.enum(runTriggers),
  scheduledFor: z.string(),
  createdAt: z.string(),
  status: z.enum(runStatuses),
  skipReason: z.nullable(z.enum(runSkipReasons)),
  recipients: recipientCounts,
  completedAt: z.nullable(z.string()),
}) satisfies z.ZodMiniType<RunDto>;

export const deliveryOutput = z.strictObject({
  recipient: recipientOutput,
  status: z.enum(deliveryStatuses),
  reason: z.nullable(z.enum(deliverySkipReasons)),
  jobId: z.nullable(z.string()),
  attempts: countOutput(),
  error: z.nullable(z.string()),
  updatedAt: z.string(),
}) satisfies z.ZodMiniType<DeliveryDto>;

export const runPage = pageOf(runOutput) satisfies z.ZodMiniType<Page<RunDto>>;
export const deliveryPage = pageOf(deliveryOutput) satisfies z.ZodMiniType<Page<DeliveryDto>>;
