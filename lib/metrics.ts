import type { MiddlewareObj, Request } from '@middy/core';
import type { Context } from 'aws-lambda';
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
  startedForRequests,
  statusClassMetrics,
} from '#lib/telemetry-names';

/**
 * The one metrics buffer, written as CloudWatch embedded metric format (EMF): one JSON line per
 * request on stdout, which CloudWatch Logs turns into metrics, with no API call on the request's
 * path. The lines are those Powertools Metrics wrote (namespace, `service` dimension, `ColdStart` with
 * `function_name`), in a few lines of our own: Powertools' 15 KB sat in every function's cold start.
 * POWERTOOLS_METRICS_DISABLED=true, the variable Powertools read, still turns it off (locally).
 */

type Unit = 'Count' | 'Milliseconds';

const service = process.env.POWERTOOLS_SERVICE_NAME || SERVICE_NAME;
const off = (process.env.POWERTOOLS_METRICS_DISABLED ?? '').trim().toLowerCase() === 'true';
let coldStart = startedForRequests();

let dimensions: Record<string, string> = {};
/** Values per metric; a metric added twice before a flush keeps both, as EMF allows. */
let values = new Map<string, { unit: Unit; values: number[] }>();

function add(name: string, unit: Unit, value: number): void {
  const stored = values.get(name);
  if (stored) stored.values.push(value);
  else values.set(name, { unit, values: [value] });
}

/** One EMF line: the metrics' names and units under `_aws`, their values and the dimensions beside. */
function emfLine(
  dimensionsOfLine: Record<string, string>,
  metricsOfLine: ReadonlyMap<string, { unit: Unit; values: number[] }>,
  timestamp = Date.now(),
): string {
  const all = { service, ...dimensionsOfLine };
  const entries = [...metricsOfLine];
  return JSON.stringify({
    _aws: {
      Timestamp: timestamp,
      CloudWatchMetrics: [
        {
          Namespace: METRICS_NAMESPACE,
          Dimensions: [Object.keys(all)],
          Metrics: entries.map(([name, { unit }]) => ({ Name: name, Unit: unit })),
        },
      ],
    },
    ...all,
    ...Object.fromEntries(
      entries.map(([name, metric]) => [name, metric.values.length === 1 ? metric.values[0] : metric.values]),
    ),
  });
}

/** Writes what the buffer holds (nothing when it holds no metric) and empties it. */
function flush(): void {
  if (!off && values.size > 0) process.stdout.write(`${emfLine(dimensions, values)}\n`);
  dimensions = {};
  values = new Map();
}

/**
 * Names the operation of the current request's metrics. Skipped while metrics are off: one local
 * process serves requests concurrently, and their dimensions would mix.
 */
export function tagOperation(operation: string): void {
  if (!off) dimensions[OPERATION_DIMENSION] = operation;
}

export function recordRequest(statusClass: StatusClass, latencyMs: number): void {
  for (const [name, metric] of Object.entries(statusClassMetrics)) {
    add(metric, 'Count', name === statusClass ? 1 : 0);
  }
  add(LATENCY_METRIC, 'Milliseconds', latencyMs);
}

/**
 * Counts a business event of the current request; nothing is emitted for zero. Operations call it
 * through createHandler's `recordMetric`, which holds the name to their route's list (lib/routes.ts).
 */
export function recordBusinessMetric(name: string, count: number): void {
  if (count > 0) add(name, 'Count', count);
}

/** A dispatcher pass's counts, flushed at once: the pass runs outside the request chain that flushes the rest. */
export function publishDispatchMetrics(counts: {
  fired: number;
  queued: number;
  skipped: number;
  missed: number;
  handedOn: number;
  left: number;
  failed: number;
}): void {
  tagOperation(DISPATCH_OPERATION);
  add('RunsCreated', 'Count', counts.fired);
  add('DeliveriesQueued', 'Count', counts.queued);
  add('DeliveriesSkipped', 'Count', counts.skipped);
  add('InstantsMissed', 'Count', counts.missed);
  add('DispatchFailures', 'Count', counts.failed);
  add('DispatchHandedOn', 'Count', counts.handedOn);
  add('DispatchLeft', 'Count', counts.left);
  flush();
}

/** Runs dispatched over an hour ago whose outcomes are not all in (the stuck-run alarm's figure), flushed at once. */
export function publishRunsAwaitingOutcomes(count: number): void {
  tagOperation(DISPATCH_OPERATION);
  add(RUNS_AWAITING_OUTCOMES_METRIC, 'Count', count);
  flush();
}

/** A run's totals once its last outcome is in: one data point per run, so an average is per run. */
export function recordCompletedRun(recipients: { delivered: number; failed: number }): void {
  add(RUN_DELIVERED_METRIC, 'Count', recipients.delivered);
  add(RUN_FAILED_METRIC, 'Count', recipients.failed);
}

/**
 * The chain's metrics middleware: on a container's first request a `ColdStart` line of its own
 * (dimensions `service` and `function_name`, nothing of the request's), and the request's metrics
 * flushed once it is answered, whether it succeeded or failed.
 */
export function requestMetrics(): MiddlewareObj<unknown, unknown, Error, Context> {
  const requestMetricsBefore = (request: Request<unknown, unknown, Error, Context>) => {
    if (!coldStart) return;
    coldStart = false;
    const functionName = request.context.functionName?.trim();
    if (!off)
      process.stdout.write(
        `${emfLine(functionName ? { function_name: functionName } : {}, new Map([['ColdStart', { unit: 'Count', values: [1] }]]))}\n`,
      );
  };
  return { before: requestMetricsBefore, after: flush, onError: flush };
}
