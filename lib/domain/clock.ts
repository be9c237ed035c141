/**
 * Time and chance as the domain receives them. The domain reads no system clock, sets no timer and
 * draws no random number itself: its callers pass the machine's (lib/clock.ts), tests may pass
 * fixed ones, and what a rule does at a given instant can be checked at that instant.
 */
export interface Clock {
  /** The current instant (epoch ms). */
  now(): number;
  /** Resolves once `ms` milliseconds of this clock have passed. */
  sleep(ms: number): Promise<void>;
}

/** A clock that stays at `instant` and never waits: a pass whose time does not run (tests). */
export const stoppedClock = (instant: number): Clock => ({ now: () => instant, sleep: async () => {} });

/** `bytes` random bytes as lowercase hex: what must differ between callers (lease owners, manual run ids). */
export type RandomHex = (bytes: number) => string;
