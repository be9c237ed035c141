import { type Deadline, hasTimeFor, NO_DEADLINE } from '#lib/deadline';
import { UnavailableError } from '#lib/errors';
import { MIN_TIME_FOR_A_CALL_MS } from '#lib/timeouts';

export function ensureTimeLeft(deadline: Deadline = NO_DEADLINE): void {
  if (!hasTimeFor(deadline, MIN_TIME_FOR_A_CALL_MS)) {
    throw new UnavailableError('The request ran out of time');
  }
}
