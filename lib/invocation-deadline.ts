import { AsyncLocalStorage } from 'node:async_hooks';
import { type Deadline, NO_DEADLINE } from '#lib/deadline';

/**
 * The deadline of the invocation in progress, for code that runs inside it but is handed no deadline:
 * the table client bounds each storage call by it, so that a stalled engine cannot hold a request past
 * the time its function has left. The local server runs many invocations in one process at once, so
 * the deadline follows each invocation's own asynchronous work rather than living in a module variable.
 */
const current = new AsyncLocalStorage<Deadline>();

export const runWithinDeadline = <T>(deadline: Deadline, work: () => T): T => current.run(deadline, work);

/** No deadline outside an invocation (a script, a test calling the store directly). */
export const currentDeadline = (): Deadline => current.getStore() ?? NO_DEADLINE;
