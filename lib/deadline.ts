/**
 * When an invocation's work must end. Long work (a dispatch pass, a purge, a retry, a large add)
 * asks before each step whether the step still fits; it stops in time rather than be cut off, and a
 * repeat or the next pass resumes what it left.
 */
export interface Deadline {
  /** Milliseconds left to work in. */
  remainingMs(): number;
}

/** No end: a test, or a command run by hand. */
export const NO_DEADLINE: Deadline = { remainingMs: () => Number.POSITIVE_INFINITY };

/** The end of a Lambda invocation, less `reserveMs` kept back to answer in. */
export const invocationDeadline = (
  context: { getRemainingTimeInMillis(): number },
  reserveMs = 0,
): Deadline => ({ remainingMs: () => context.getRemainingTimeInMillis() - reserveMs });

/** Whether more than `ms` milliseconds are left. */
export const hasTimeFor = (deadline: Deadline, ms: number): boolean => deadline.remainingMs() > ms;
