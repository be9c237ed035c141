import * as z from 'zod/mini';
import { RUN_ID_PATTERN, runStatuses } from '#lib/domain/runs';
import { pathId } from '#lib/http/schemas/common';
import { pageOf } from '#lib/http/schemas/paging';
import { recipientOutput } from '#lib/http/schemas/recipient-outputs';

/** Requests and answers of send-now and the run and delivery lists. */

export const runPath = z.strictObject({
  deploymentId: pathId,
  id: pathId,
  runId: z.string().check(z.regex(RUN_ID_PATTERN, 'is not a run id')),
});

/** Send-now takes no fields: an absent or empty body, or `{}`. */
export const sendNowInput = z.strictObject({});

const recipientCounts = z.strictObject({ queued: z.int(), skipped: z.int() });

export const runOutput = z.strictObject({
  runId: z.string(),
  deploymentId: z.int(),
  notificationId: z.int(),
  trigger: z.enum(['schedule', 'manual']),
  scheduledFor: z.string(),
  createdAt: z.string(),
  status: z.enum(runStatuses),
  skipReason: z.nullable(z.enum(['delivery_disabled', 'dashboard_unavailable'])),
  recipients: recipientCounts,
});

const deliveryOutput = z.strictObject({
  recipient: recipientOutput,
  status: z.enum(['queued', 'skipped']),
  reason: z.nullable(z.enum(['user_deactivated', 'not_shared_with_tenant'])),
  jobId: z.nullable(z.string()),
});

export const runPage = pageOf(runOutput);
export const deliveryPage = pageOf(deliveryOutput);
