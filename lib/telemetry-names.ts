/**
 * The names that the functions emit and the stack's alarms and dashboard read, in one place and free
 * of any SDK, so that the CDK app can import them cheaply.
 */

export const SERVICE_NAME = 'admin-api';
export const METRICS_NAMESPACE = 'AdminApi';
/** The dimension that tells operations apart, next to Powertools' own `service`. */
export const OPERATION_DIMENSION = 'operation';

/** Emitted once per request: 1 for the response's status class, 0 for the others, so that an average is a rate. */
export const statusClassMetrics = {
  '2xx': 'Responses2xx',
  '4xx': 'Responses4xx',
  '5xx': 'Responses5xx',
} as const;
export type StatusClass = keyof typeof statusClassMetrics;

/** From the event's arrival in the handler to the response, in milliseconds. */
export const LATENCY_METRIC = 'Latency';

/**
 * What happened in the business, counted per dispatcher pass. The routes' own business metrics are
 * facts of their routes (lib/routes.ts).
 */
export const DISPATCH_METRICS = [
  'RunsCreated',
  'DeliveriesQueued',
  'DeliveriesSkipped',
  'InstantsMissed',
  'DispatchFailures',
  /** Due entries a worker handed on to continuations it started, to fire within the minute. */
  'DispatchHandedOn',
  /** Due entries a worker neither fired nor handed on: they fire a minute late or later. */
  'DispatchLeft',
] as const;

/** The dispatcher's operation name in metrics and logs (it answers no route). */
export const DISPATCH_OPERATION = 'dispatch';

/** Runs dispatched longer ago than OUTCOMES_OVERDUE_AFTER_MS with outcomes still missing; counted each minute. */
export const RUNS_AWAITING_OUTCOMES_METRIC = 'RunsAwaitingOutcomesOverAnHour';
export const OUTCOMES_OVERDUE_AFTER_MS = 60 * 60_000;
/** Per completed run (emitted by the outcome report that completes it): its delivered and failed deliveries. */
export const RUN_DELIVERED_METRIC = 'RunDeliveriesDelivered';
export const RUN_FAILED_METRIC = 'RunDeliveriesFailed';

/**
 * Whether this process started for a request: Lambda says `on-demand` (not provisioned, not a
 * snapshot); a process with no such variable (`npm start`, a test) was started for its requests too.
 */
export const startedForRequests = () =>
  (process.env.AWS_LAMBDA_INITIALIZATION_TYPE ?? 'on-demand') === 'on-demand';
