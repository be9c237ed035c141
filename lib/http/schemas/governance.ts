import * as z from 'zod/mini';
import { MAX_PAUSE_REASON_LENGTH, type PauseInput } from '#lib/domain/governance/governance';
import { compactTextUpTo, nullish, nullMeansOmitted } from '#lib/http/schemas/common';

/**
 * Pause: an absent or empty body pauses until resumed. `until` is an ISO-8601 instant with its offset
 * (`2027-03-28T01:00:00Z`, `2027-03-28T02:15:00+01:00`); how far ahead it may be is the domain's rule.
 */
export const pauseInput = nullMeansOmitted(
  z.strictObject({
    until: nullish(
      z.pipe(
        z.iso.datetime({
          offset: true,
          error: 'must be an ISO-8601 instant with its offset, e.g. 2027-03-28T01:00:00Z',
        }),
        z.transform((text: string) => Date.parse(text)),
      ),
    ),
    reason: nullish(compactTextUpTo(MAX_PAUSE_REASON_LENGTH)),
  }),
) satisfies z.ZodMiniType<PauseInput>;
