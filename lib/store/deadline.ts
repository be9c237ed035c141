import { UnavailableError } from '#lib/errors';

/** Less than this left, and a call that may need retries is not started: better a clean 503 than a kill. */
export const MIN_TIME_FOR_A_CALL_MS = 1000;

export function ensureTimeLeft(remainingTimeMs: (() => number) | undefined): void {
  if (remainingTimeMs && remainingTimeMs() < MIN_TIME_FOR_A_CALL_MS) {
    throw new UnavailableError('The request ran out of time; it is safe to repeat');
  }
}
