import { describe, expect, it } from 'vitest';
import { passCounts, summaryLine } from '#lib/domain/dispatch/dispatch-summary';
import type { PassSummary } from '#lib/domain/dispatch/pass-context';

const summary: PassSummary = {
  due: 9,
  fired: 8,
  missed: 7,
  resumed: 6,
  queued: 5,
  skipped: 4,
  unfinished: 3,
  handedOn: 11,
  left: 10,
  failed: 2,
  runs: [],
};

describe('a pass summary', () => {
  it('reads as one line with every count under its name', () => {
    expect(summaryLine(Date.UTC(2026, 10, 24, 9, 15), summary)).toBe(
      'dispatch 2026-11-24T09:15:00.000Z: 9 due, 8 fired, 5 queued, 4 skipped, 7 missed, 6 resumed, 3 unfinished, 11 handed on, 10 left, 2 failed',
    );
  });

  it('gives its counts without the runs', () => {
    expect(passCounts(summary)).toEqual({
      due: 9,
      fired: 8,
      missed: 7,
      resumed: 6,
      queued: 5,
      skipped: 4,
      unfinished: 3,
      handedOn: 11,
      left: 10,
      failed: 2,
    });
  });
});
