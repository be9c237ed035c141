import { describe, expect, it } from 'vitest';
import { isRunKept, oldestKeptInstant, runExpiresAt, runInstant } from '#lib/domain/runs/retention';

const DAY = 86_400_000;

describe('run retention', () => {
  it('reads the instant a run id starts with, to the millisecond', () => {
    expect(runInstant('20261124T091500123Z-abc')).toBe(Date.UTC(2026, 10, 24, 9, 15, 0, 123));
    expect(runInstant('20260101T000000000Z')).toBe(Date.UTC(2026, 0, 1));
    for (const other of ['', 'run-1', '2026-11-24T09:15:00.123Z', 'x20261124T091500123Z']) {
      expect(runInstant(other)).toBeUndefined();
    }
  });

  it('expires a run the retention period after its instant, in whole seconds rounded up', () => {
    expect(runExpiresAt(Date.UTC(2026, 0, 1), 30)).toBe(Date.UTC(2026, 0, 31) / 1000);
    expect(runExpiresAt(Date.UTC(2026, 0, 1) + 1, 30)).toBe(Date.UTC(2026, 0, 31) / 1000 + 1);
  });

  it('keeps a run until the retention period after its instant has passed, and no run whose id has no instant', () => {
    const now = Date.UTC(2026, 1, 1, 12);
    expect(oldestKeptInstant(now, 7)).toBe(now - 7 * DAY + 1);
    const idAt = (instant: number) => `${new Date(instant).toISOString().replace(/[-:.]/g, '')}-x`;
    expect(isRunKept(idAt(now - 7 * DAY + 1), now, 7)).toBe(true);
    expect(isRunKept(idAt(now - 7 * DAY), now, 7)).toBe(false);
    expect(isRunKept(idAt(now), now, 7)).toBe(true);
    expect(isRunKept('not-a-run', now, 7)).toBe(false);
  });
});
