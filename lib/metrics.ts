import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { logger } from '#lib/log';
import {
  DISPATCH_OPERATION,
  LATENCY_METRIC,
  METRICS_NAMESPACE,
  OPERATION_DIMENSION,
  RUN_DELIVERED_METRIC,
  RUN_FAILED_METRIC,
  RUNS_AWAITING_OUTCOMES_METRIC,
  SERVICE_NAME,
  type StatusClass,
  statusClassMetrics,
} from '#lib/telemetry-names';

/**
 * The one metrics buffer: Powertools writes it as CloudWatch embedded metric format (one JSON line
 * per request, turned into metrics by CloudWatch Logs; no API call on the request's path). Flushed by
 * its Middy middleware after each request. POWERTOOLS_METRICS_DISABLED=true turns it off (locally).
 */
class ServiceMetrics extends Metrics {
  /** Whether the buffer is off (POWERTOOLS_METRICS_DISABLED), as Powertools decided at construction. */
  get off(): boolean {
    return this.isDisabled();
  }
}

export const metrics = new ServiceMetrics({
  namespace: METRICS_NAMESPACE,
  serviceName: process.env.POWERTOOLS_SERVICE_NAME ?? SERVICE_NAME,
  // Its own warnings as our JSON lines at the configured level, not bare console output.
  logger,
});

/**
 * Names the operation of the current request's metrics. Skipped while metrics are off: one local
 * process serves requests concurrently, and a dimension set twice before a flush only warns.
 */
export function tagOperation(operation: string): void {
  if (!metrics.off) metrics.addDimension(OPERATION_DIMENSION, operation);
}

export function recordRequest(statusClass: StatusClass, latencyMs: number): void {
  for (const [name, metric] of Object.entries(statusClassMetrics)) {
    metrics.addMetric(metric, MetricUnit.Count, name === statusClass ? 1 : 0);
  }
  metrics.addMetric(LATENCY_METRIC, MetricUnit.Milliseconds, latencyMs);
}

/**
 * Counts a business event of the current request; nothing is emitted for zero. Operations call it
 * through createHandler's `recordMetric`, which holds the name to their route's list (lib/routes.ts).
 */
export function recordBusinessMetric(name: string, count: number): void {
  if (count > 0) metrics.addMetric(name, MetricUnit.Count, count);
}

/** A dispatcher pass's counts, flushed at once: the pass runs outside the request chain that flushes the rest. */
export function publishDispatchMetrics(counts: {
  fired: number;
  queued: number;
  skipped: number;
  missed: number;
  failed: number;
}): void {
  tagOperation(DISPATCH_OPERATION);
  metrics.addMetric('RunsCreated', MetricUnit.Count, counts.fired);
  metrics.addMetric('DeliveriesQueued', MetricUnit.Count, counts.queued);
  metrics.addMetric('DeliveriesSkipped', MetricUnit.Count, counts.skipped);
  metrics.addMetric('InstantsMissed', MetricUnit.Count, counts.missed);
  metrics.addMetric('DispatchFailures', MetricUnit.Count, counts.failed);
  metrics.publishStoredMetrics();
}

/** Runs dispatched over an hour ago whose outcomes are not all in (the stuck-run alarm's figure), flushed at once. */
export function publishRunsAwaitingOutcomes(count: number): void {
  metrics.addDimension(OPERATION_DIMENSION, DISPATCH_OPERATION);
  metrics.addMetric(RUNS_AWAITING_OUTCOMES_METRIC, MetricUnit.Count, count);
  metrics.publishStoredMetrics();
}

/** A run's totals once its last outcome is in: one data point per run, so an average is per run. */
export function recordCompletedRun(recipients: { delivered: number; failed: number }): void {
  metrics.addMetric(RUN_DELIVERED_METRIC, MetricUnit.Count, recipients.delivered);
  metrics.addMetric(RUN_FAILED_METRIC, MetricUnit.Count, recipients.failed);
}
