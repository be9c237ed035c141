import * as z from 'zod/mini';
import { emailFitsKey, tooLongEncoded } from '#lib/domain/recipients/recipients-input';
import { MAX_TEST_RECIPIENTS, type TestRecipientInput } from '#lib/domain/runs/test-send-input';
import { nullish, nullMeansOmitted, wellFormedTextUpTo } from '#lib/http/schemas/common';

/** The request of send-now (its answer and the run and delivery lists' are in run-outputs.ts). */

const testRecipient = nullMeansOmitted(
  z.strictObject({
    type: nullish(z.literal('USER')),
    userId: nullish(z.int('must be a positive integer').check(z.positive('must be a positive integer'))),
    email: nullish(wellFormedTextUpTo(320).check(z.refine(emailFitsKey, tooLongEncoded))),
  }),
).check(
  z.refine(
    (item) => item.userId !== undefined || item.email !== undefined,
    'must name a console user by userId or email',
  ),
) satisfies z.ZodMiniType<TestRecipientInput>;

/**
 * Send-now: an absent or empty body, or `{}`. With `recipients` (1–10 console users), a test send to
 * exactly them.
 */
export const sendNowInput = nullMeansOmitted(
  z.strictObject({
    recipients: nullish(
      z
        .array(testRecipient)
        .check(
          z.minLength(1, 'must list at least one console user'),
          z.maxLength(MAX_TEST_RECIPIENTS, `must have at most ${MAX_TEST_RECIPIENTS} recipients`),
        ),
    ),
  }),
);
