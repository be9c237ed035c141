import type { DueSlice } from '#lib/domain/dispatch/dispatch-fanout';
import type { ConsoleUser, Dashboard } from '#lib/domain/entities';
import type { Notification, NotificationRef } from '#lib/domain/notifications/notification';
import type {
  Delivery,
  DeliveryJob,
  RecipientCounts,
  RecipientRow,
  Run,
  RunRef,
} from '#lib/domain/runs/runs';
import type { ScheduleState } from '#lib/domain/schedules/schedule';
import type { SuppressionLookup } from '#lib/domain/suppressions/suppressions';
import type { WebhookEvent } from '#lib/domain/webhooks/messages';

/**
 * The ports of the dispatcher and of delivering a run's pages (which send-now shares), and the
 * shapes they carry: lib/store/dispatch/dispatch.ts and lib/store/dispatch/run-delivery.ts implement
 * them, lib/jobs/ the job sink.
 */

export interface Lease {
  owner: string;
  until: number;
}

export type DueEntry = (
  | { kind: 'notification'; deploymentId: number; notificationId: number; dueKey: string; dueAt: number }
  /** A notification item's mark: its schedule was written at `dueAt`, and its state may be left to store. */
  | { kind: 'change'; deploymentId: number; notificationId: number; dueKey: string; dueAt: number }
  | { kind: 'run'; deploymentId: number; notificationId: number; runId: string; dueKey: string }
) & {
  /** The due-index shard it was read from. */
  shard?: number;
};

interface StoredNotification {
  notification: Notification;
  /** Its schedule entry's key in the due index; undefined while nothing is upcoming. */
  dueKey: string | undefined;
}

/** A schedule entry as a pass read it: the key it was due under and the schedule version it follows. */
interface EntryRead {
  dueKey: string;
  scheduleVersion: number;
}

/** Moves a schedule entry from what was read to these upcoming instants (out of the index when none). */
export interface EntryMove extends EntryRead {
  upcoming: readonly number[];
}

/** A page of a notification's recipient rows, and the last row's key when more may follow. */
export interface RecipientsPage {
  rows: RecipientRow[];
  last: string | undefined;
}

/** What a due notification's first read finds (step 1). */
export interface DueNotification {
  /** Undefined when the notification is gone and only its entry is left. */
  notification: { value: Notification; scheduleVersion: number; changeKey: string | undefined } | undefined;
  /** Its schedule entry; undefined when it has none (yet). */
  schedule: { upcoming: readonly number[]; scheduleVersion: number; dueKey: string | undefined } | undefined;
  firstPage: RecipientsPage;
}

export interface RunProgress {
  run: Run;
  /** The last recipient row already delivered; undefined before the first page. */
  cursor: string | undefined;
}

/**
 * What delivering a run's recipients page by page needs, under the run's lease: shared by a
 * dispatcher pass and a send-now.
 */
export interface RunDeliveryStore {
  recipientsPage(ref: NotificationRef, after: string | undefined, limit: number): Promise<RecipientsPage>;
  users(ids: readonly number[]): Promise<Map<number, ConsoleUser>>;
  /** Which of a page's addresses the deployment suppresses: one read per page, whatever their number. */
  suppressedAmong: SuppressionLookup['suppressedAmong'];
  putDeliveries(run: Run, deliveries: readonly Delivery[]): Promise<void>;
  /** Records a delivered page, renewing the lease; false when the lease is no longer ours. */
  saveProgress(
    ref: RunRef,
    lease: Lease,
    cursor: string,
    counts: RecipientCounts,
    renewed: number,
  ): Promise<boolean>;
  /** Marks the run dispatched with its counts and takes it out of the index; false when the lease is no longer ours. */
  finishRun(ref: RunRef, lease: Lease, counts: Pick<RecipientCounts, 'queued' | 'skipped'>): Promise<boolean>;
  /** Ends the lease now, so the next pass resumes the run at once. */
  releaseLease(ref: RunRef, lease: Lease, now: number): Promise<void>;
  /** Whether the notification still exists (a strongly consistent read): lib/store/notifications/notification-guard.ts. */
  notificationIsLive(ref: NotificationRef): Promise<boolean>;
}

/** A dispatcher pass's storage: the due index and its entries, and a run's deliveries. */
export interface DispatchStore extends RunDeliveryStore {
  /**
   * Every due-index entry at or before `now` in the given slices of the index (every shard when
   * absent), each shard's oldest first.
   */
  dueEntries(now: number, slices?: readonly DueSlice[]): Promise<DueEntry[]>;
  findNotification(ref: NotificationRef): Promise<StoredNotification | undefined>;
  /** Step 1: the notification, its schedule entry and up to `limit` recipients. */
  dueNotification(ref: NotificationRef, limit: number): Promise<DueNotification>;
  /** Stores a schedule state unless a later one is stored (see NotificationRepository.storeSchedule). */
  storeSchedule(
    ref: NotificationRef,
    state: ScheduleState,
    signature: string,
    scheduleVersion: number,
  ): Promise<void>;
  /** Takes a notification's schedule-change mark out of the index, if it is still the one read. */
  clearChangeMark(ref: NotificationRef, changeKey: string): Promise<void>;
  /**
   * Step 2 in one transaction: creates the run unless its id exists (a pending run enters the due
   * index under its lease), moves the entry from the one read, and writes the deliveries.
   */
  claimInstant(
    run: Run,
    lease: Lease | undefined,
    move: EntryMove,
    deliveries: readonly Delivery[],
    /** A skipped run's webhook message, recorded in the same transaction. */
    event?: WebhookEvent,
  ): Promise<'claimed' | 'run-exists' | 'entry-moved'>;
  /** Moves the entry alone (nothing fires); false if it had moved already. */
  moveEntry(ref: NotificationRef, move: EntryMove): Promise<boolean>;
  findDashboard(deploymentId: number, dashboardId: number): Promise<Dashboard | undefined>;
  /** Creates the run unless its id exists (false then). A pending run enters the due index under its lease. */
  createRun(run: Run, lease: Lease | undefined): Promise<boolean>;
  /** Takes over a pending run whose lease ended by `now`; undefined when it is finished, gone or held. */
  takeOver(ref: RunRef, now: number, lease: Lease): Promise<RunProgress | undefined>;
}

/** Where delivery jobs go: a queue when deployed, files locally. Sending the same job again is harmless. */
export interface JobSink {
  send(jobs: readonly DeliveryJob[]): Promise<void>;
}
