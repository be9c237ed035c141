import * as z from 'zod/mini';
import { runStatuses } from '#lib/domain/runs';
import { countOutput, idOutput, pathId } from '#lib/http/schemas/common';
import { pageOf } from '#lib/http/schemas/paging';
import { recipientOutput } from '#lib/http/schemas/recipient-outputs';

/** Requests and answers of send-now and the run and delivery lists. */

export const runPath = z.strictObject({
  deploymentId: pathId,
  id: pathId,
  /** Opaque to clients: an id of a form the service never issues is an unknown run (404), not a 400. */
  runId: z.string(),
});

/** Send-now takes no fields: an absent or empty body, or `{}`. */
export const sendNowInput = z.strictObject({});

const recipientCounts = z.strictObject({ queued: countOutput(), skipped: countOutput() });

export const runOutput = z.strictObject({
  runId: z.string(),
  deploymentId: idOutput(),
  notificationId: idOutput(),
  trigger: z.enum(['schedule', 'manual']),
  scheduledFor: z.string(),
  createdAt: z.string(),
  status: z.enum(runStatuses),
  skipReason: z.nullable(z.enum(['delivery_disabled', 'dashboard_unavailable'])),
  recipients: recipientCounts,
});

export const deliveryOutput = z.strictObject({
  recipient: recipientOutput,
  status: z.enum(['queued', 'skipped']),
  reason: z.nullable(z.enum(['user_deactivated', 'not_shared_with_tenant'])),
  jobId: z.nullable(z.string()),
});

export const runPage = pageOf(runOutput);
export const deliveryPage = pageOf(deliveryOutput);
