import * as z from 'zod/mini';
import { MAX_OUTCOME_ERROR_LENGTH, type OutcomeReport, outcomeStatuses } from '#lib/domain/runs/outcomes';
import { bounceKinds } from '#lib/domain/suppressions/suppressions';
import { MAX_TOKEN_LENGTH } from '#lib/domain/unsubscribe/unsubscribe';
import { intBetween, nullish, nullMeansOmitted, wellFormedTextUpTo } from '#lib/http/schemas/common';

/** Requests of the renderer's outcome report and of one-click unsubscribe. */

/** Any text up to a bound: a job id this service did not issue is a 404, decided by the domain. */
export const jobPath = z.strictObject({
  jobId: z.string().check(z.maxLength(200, 'must be at most 200 characters')),
});

/** Attempts count from 1; a delivery is never queued anywhere near this often. */
const MAX_ATTEMPT = 1_000_000;

export const outcomeInput = nullMeansOmitted(
  z.strictObject({
    status: z.enum(outcomeStatuses),
    error: nullish(wellFormedTextUpTo(MAX_OUTCOME_ERROR_LENGTH)),
    attempt: intBetween(1, MAX_ATTEMPT),
    // The address bounced hard (a failed delivery) or its owner complained: it is suppressed.
    bounce: nullish(z.enum(bounceKinds)),
  }),
).check(
  z.superRefine((report, ctx) => {
    if (report.error !== undefined && report.status !== 'failed') {
      ctx.issues.push({
        code: 'custom',
        path: ['error'],
        message: 'is only for a failed delivery',
        input: report.error,
      });
    }
    if (report.bounce === 'hard' && report.status !== 'failed') {
      ctx.issues.push({
        code: 'custom',
        path: ['bounce'],
        message: '"hard" is only for a failed delivery',
        input: report.bounce,
      });
    }
  }),
) satisfies z.ZodMiniType<OutcomeReport>;

export const unsubscribeQuery = z.strictObject({
  token: z
    .string()
    .check(
      z.minLength(1, 'is required'),
      z.maxLength(MAX_TOKEN_LENGTH, `must be at most ${MAX_TOKEN_LENGTH} characters`),
    ),
});
