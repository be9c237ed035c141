import type { DueSlice } from '#lib/domain/dispatch/dispatch-fanout';
import type { DispatchStore, JobSink } from '#lib/domain/dispatch/dispatch-ports';
import {
  type DeliveryContext,
  type DeliveryOptions,
  newDeliveryContext,
} from '#lib/domain/dispatch/page-delivery';
import type { Dashboard } from '#lib/domain/entities';
import type { Run } from '#lib/domain/runs/runs';
import type { SchedulePlanner } from '#lib/domain/schedules/schedule-planning';
import type { EventRecorder } from '#lib/domain/webhooks/recording';

/** A pass's options, summary and working state, shared by the pass and what it does with each entry. */

/** Starts another worker on slices of the due index a pass hands on: deployed, an invocation of its function. */
interface Continuation {
  start(slices: readonly DueSlice[]): Promise<void>;
}

export interface DispatchOptions extends DeliveryOptions {
  /** Whether a skipped run's `run.skipped` webhook message is wanted, and its id. */
  events?: EventRecorder;
  /** The cron code a pass needs (lib/domain/schedules/schedule-planning.ts); send-now needs none. */
  planner?: SchedulePlanner;
  misfireGraceMinutes: number;
  concurrency?: number;
  /** The slices of the due index this pass reads; passes over disjoint slices share a busy minute. */
  slices?: readonly DueSlice[];
  /**
   * When what the pass read should all have fired (epoch ms): the end of its minute's window. With a
   * continuation, the pass hands on, as soon as it has measured its pace, the shards it would not
   * fire by then, and at its own deadline whatever it has not started.
   */
  fireBy?: number;
  continuation?: Continuation;
  /**
   * Entries started per second in any one shard, at most: each writes a few entries into its shard's
   * index partition, which takes at most 1,000 writes a second (lib/domain/dispatch/dispatch-fanout.ts).
   */
  maxPerSecondPerShard?: number;
}

export interface PassSummary {
  /** Entries read from the due index. */
  due: number;
  /** Runs made for scheduled instants (dispatched or skipped). */
  fired: number;
  /** Instants older than the grace, not fired. */
  missed: number;
  /** Runs resumed after their lease ended (a crash or a stop for time). */
  resumed: number;
  queued: number;
  skipped: number;
  /** Runs left for a later pass (out of time). */
  unfinished: number;
  /** Entries handed on to continuations, started at once. */
  handedOn: number;
  /** Entries neither done nor handed on (out of time, or a continuation refused): the next minute's. */
  left: number;
  /** Entries that failed; a later pass retries them. */
  failed: number;
  runs: Run[];
}

export interface PassContext extends DeliveryContext<DispatchStore> {
  options: DispatchOptions;
  summary: PassSummary;
  /** Dashboards read in this pass: many notifications of a busy minute share a few dashboards. */
  dashboards: Map<string, Promise<Dashboard | undefined>>;
}

export function newPassContext(store: DispatchStore, sink: JobSink, options: DispatchOptions): PassContext {
  return {
    ...newDeliveryContext(store, sink, options),
    options,
    dashboards: new Map(),
    summary: {
      due: 0,
      fired: 0,
      missed: 0,
      resumed: 0,
      queued: 0,
      skipped: 0,
      unfinished: 0,
      handedOn: 0,
      left: 0,
      failed: 0,
      runs: [],
    },
  };
}

export function dashboardOf(
  context: PassContext,
  deploymentId: number,
  dashboardId: number,
): Promise<Dashboard | undefined> {
  const key = `${deploymentId}/${dashboardId}`;
  let dashboard = context.dashboards.get(key);
  if (!dashboard) {
    dashboard = context.store.findDashboard(deploymentId, dashboardId);
    context.dashboards.set(key, dashboard);
  }
  return dashboard;
}
