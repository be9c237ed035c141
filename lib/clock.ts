import { randomBytes } from 'node:crypto';
import { sleep } from '#lib/concurrency';
import type { Deadline } from '#lib/deadline';

/**
 * The machine's time and chance, in the shapes the domain's ports take (lib/domain/clock.ts): the
 * handlers, the dispatcher, the purge and the local loops pass them in; the domain never reads them
 * itself.
 */

/** The machine's clock, moved to start at `instant`: a pass run as of another time runs on from it. */
export function clockFrom(instant: number) {
  const offset = instant - Date.now();
  return { now: () => Date.now() + offset, sleep };
}

export const randomHex = (bytes: number) => randomBytes(bytes).toString('hex');

/** A deadline `ms` from now on the machine's clock: a local stand-in for an invocation's end. */
export function deadlineIn(ms: number): Deadline {
  const end = Date.now() + ms;
  return { remainingMs: () => end - Date.now() };
}
