import { clockFrom, deadlineIn } from '#lib/clock';
import { type PurgeSummary, purgePass, purgeSummaryLine } from '#lib/domain/deletion/purge';
import { purgeStore } from '#lib/store/deletion/purge-store';

/** A local pass gets as long as a deployed one: its work is bounded the same way. */
const PASS_BUDGET_MS = 60_000;
/** Deletes are rare and a user who just deleted looks at once: a pass every few seconds. */
const INTERVAL_MS = 5_000;

/** One purge pass against the configured table, with its one-line summary. */
async function purgeOnce(now: number): Promise<{ summary: PurgeSummary; line: string }> {
  const summary = await purgePass(purgeStore, {
    now,
    clock: clockFrom(now),
    deadline: deadlineIn(PASS_BUDGET_MS),
  });
  return { summary, line: purgeSummaryLine(now, summary) };
}

/**
 * The deployed purge rule's stand-in under `npm start`: a pass every few seconds. Passes never
 * overlap; only a pass that did something prints its line, and a failed one is printed and the next
 * goes on.
 */
export function startPurgeLoop(print: (line: string) => void): { stop: () => void } {
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  const run = async () => {
    try {
      const { summary, line } = await purgeOnce(Date.now());
      const didSomething = summary.deleted + summary.finished + summary.failed + summary.recreated > 0;
      if (summary.pending > 0 && didSomething) print(line);
    } catch (error) {
      print(`purge failed: ${error instanceof Error ? error.message : String(error)}`);
    }
    if (!stopped) timer = setTimeout(run, INTERVAL_MS);
  };
  timer = setTimeout(run, INTERVAL_MS);
  return {
    stop: () => {
      stopped = true;
      clearTimeout(timer);
    },
  };
}
