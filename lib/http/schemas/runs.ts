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
} from '#lib/domain/runs';
import { MAX_TEST_RECIPIENTS, type TestRecipientInput } from '#lib/domain/test-send-input';
import { countOutput, idOutput, wellFormedTextUpTo } from '#lib/http/schemas/common';
import { pageOf } from '#lib/http/schemas/paging';
import { recipientOutput } from '#lib/http/schemas/recipient-outputs';

/** Requests and answers of send-now and the run and delivery lists. */

const testRecipient = z
  .strictObject({
    type: z.optional(z.literal('USER')),
    userId: z.optional(z.int('must be a positive integer').check(z.positive('must be a positive integer'))),
    email: z.optional(wellFormedTextUpTo(320)),
  })
  .check(
    z.refine(
      (item) => item.userId !== undefined || item.email !== undefined,
      'must name a console user by userId or email',
    ),
  ) satisfies z.ZodMiniType<TestRecipientInput>;

/**
 * Send-now: an absent or empty body, or `{}`. With `recipients` (1–10 console users), a test send to
 * exactly them.
 */
export const sendNowInput = z.strictObject({
  recipients: z.optional(
    z
      .array(testRecipient)
      .check(
        z.minLength(1, 'must list at least one console user'),
        z.maxLength(MAX_TEST_RECIPIENTS, `must have at most ${MAX_TEST_RECIPIENTS} recipients`),
      ),
  ),
});

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
