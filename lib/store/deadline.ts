import { UnavailableError } from '#lib/errors';
import { MIN_TIME_FOR_A_CALL_MS } from '#lib/timeouts';

export function ensureTimeLeft(remainingTimeMs: (() => number) | undefined): void {
  if (remainingTimeMs && remainingTimeMs() < MIN_TIME_FOR_A_CALL_MS) {
    throw new UnavailableError('The request ran out of time; it is safe to repeat');
  }
}
