import { type Deadline, hasTimeFor } from '#lib/deadline';
import { UnavailableError } from '#lib/errors';
import { currentDeadline } from '#lib/invocation-deadline';
import { MIN_TIME_FOR_A_CALL_MS } from '#lib/timeouts';

/**
 * Refuses to start a call with too little time left: a clean 503 rather than a kill. The deadline is
 * the invocation's own (lib/invocation-deadline.ts), so no caller hands it through the ports.
 */
export function ensureTimeLeft(deadline: Deadline = currentDeadline()): void {
  if (!hasTimeFor(deadline, MIN_TIME_FOR_A_CALL_MS)) {
    throw new UnavailableError('The request ran out of time');
  }
}
