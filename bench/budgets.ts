/**
 * The figures of a run and its budgets: a deterministic one (bytes, DynamoDB requests, capacity units)
 * fails the run when missed; a timing, a ratio to its floor from the same run, is reported, never failing
 * it (a shared CI machine's load would make it flaky). BENCHMARKS.md says what each target holds and why.
 */

export interface Figure {
  /** `<row>: <column>` where a section shows a grid, as `list-runs: DynamoDB requests, warm`. */
  figure: string;
  value: number | string;
  unit: string;
  /** With a limit, the figure is a budget. */
  limit?: number;
  deterministic?: boolean;
  met?: boolean;
}

const KB = 1024;
/** The functions that write a schedule compute its reading and instants: they alone may hold the cron code. */
const SCHEDULE_WRITERS = [
  'create-notification',
  'update-notification',
  'dispatch',
  'preview-schedule',
  // An embed user's own create and update: the same writes of a schedule.
  'create-embed-notification',
  'update-embed-notification',
  'pause-notification',
  'resume-notification',
];
export const CRON_PACKAGES = ['luxon', 'cron-parser', 'cronstrue'];
export const isScheduleWriter = (operation: string) => SCHEDULE_WRITERS.includes(operation);
/** Functions with one more AWS client for their job: SQS to queue delivery jobs, Lambda to start workers. */
const EXTRA_CLIENT = ['send-notification', 'retry-run', 'dispatch-coordinator'];
/**
 * Job senders that also take an Idempotency-Key (its record, claimed first and marked done in the
 * transaction that makes the run or moves the deliveries) and check the notification before a job
 * leaves: send-notification (send-now and test send) and retry-run, 16 KB and 0.3 KB past +125 KB.
 */
const KEYED_JOB_SENDERS = ['send-notification', 'retry-run'];
/**
 * The dispatcher worker also starts workers (its continuations) with the Lambda client, 72 KB: a worker
 * that runs slower than planned hands on what it would not fire within the minute.
 */
const STARTS_CONTINUATIONS = ['dispatch'];
/**
 * Known misses given room rather than hidden (KB past their target), since the audit trail: the add of
 * recipients records `recipients_added` (its event, its keys and the transaction that checks the
 * notification: 2.0 KB, where add-recipients had 12 bytes to spare); the embed user's create carries
 * the cron code, the admin add's resolution of their recipient and the audit events of both (2.3 KB past
 * +250 KB). The way back: an add of one embed recipient that does without the console users'
 * resolution (about 4 KB), shared by both.
 */
const GIVEN_ROOM_KB: Record<string, number> = { 'add-recipients': 2, 'create-embed-notification': 3 };
/**
 * Bytes a function may hold beyond the floor: +100 KB; +125 KB with one more client, +145 KB for a
 * keyed job sender; +250 KB with the cron code, +325 KB with the cron code and the Lambda client.
 */
export const bytesOverFloorOf = (operation: string) =>
  (GIVEN_ROOM_KB[operation] ?? 0) * KB +
  (isScheduleWriter(operation)
    ? (STARTS_CONTINUATIONS.includes(operation) ? 325 : 250) * KB
    : KEYED_JOB_SENDERS.includes(operation)
      ? 145 * KB
      : EXTRA_CLIENT.includes(operation)
        ? 125 * KB
        : 100 * KB);
export const importRatioOf = (operation: string) => (isScheduleWriter(operation) ? 1.4 : 1.25);

type Check = (figure: string, value: number, limit: number, unit?: string) => void;

/** Every figure of a run, in the order measured; a budget among them is judged as it is recorded. */
export class Figures {
  readonly all: Figure[] = [];

  show = (figure: string, value: number | string, unit = '') => {
    this.all.push({ figure, value, unit });
  };

  /** A deterministic figure: a miss fails the run. */
  gate: Check = (figure, value, limit, unit = '') => this.check(figure, value, limit, unit, true);

  /** A timing, as a ratio to its floor from the same run: reported, never failing the run. */
  timing: Check = (figure, value, limit, unit = '×') => this.check(figure, value, limit, unit, false);

  /** The same three for the figures of one row of a grid (`<row>: <figure>`). */
  about(row: string): { show: Figures['show']; gate: Check; timing: Check } {
    return {
      show: (figure, value, unit) => this.show(`${row}: ${figure}`, value, unit),
      gate: (figure, ...rest) => this.gate(`${row}: ${figure}`, ...rest),
      timing: (figure, ...rest) => this.timing(`${row}: ${figure}`, ...rest),
    };
  }

  private check(figure: string, value: number, limit: number, unit: string, deterministic: boolean): void {
    this.all.push({ figure, value, limit, unit, deterministic, met: value <= limit });
  }

  /** Deterministic figures that missed: regressions. */
  failures = () => this.all.filter((f) => f.deterministic && !f.met);
}

export function verdict(f: Figure): string {
  if (f.met) return 'yes';
  return f.deterministic ? 'NO' : 'no (timing: reported, not gating)';
}
