import type { PassSummary } from '#lib/domain/dispatch/pass-context';

/**
 * The one line a pass prints locally and logs deployed. `unfinished` counts runs a pass stopped in;
 * `handed on` the entries it started continuations on, `left` those it could not hand on (the next
 * minute's, late): none of what it read goes unaccounted.
 */
export function summaryLine(now: number, summary: PassSummary): string {
  return (
    `dispatch ${new Date(now).toISOString()}: ${summary.due} due, ${summary.fired} fired, ` +
    `${summary.queued} queued, ${summary.skipped} skipped, ${summary.missed} missed, ` +
    `${summary.resumed} resumed, ${summary.unfinished} unfinished, ${summary.handedOn} handed on, ` +
    `${summary.left} left, ${summary.failed} failed`
  );
}

/** The counts of a pass without its runs, for logs and answers. */
export const passCounts = ({ runs: _, ...counts }: PassSummary) => counts;
