import { auditContextOf } from '#lib/domain/audit/audit';
import { retryRun } from '#lib/domain/runs/retry';
import { callerOf } from '#lib/http/caller';
import { createHandler } from '#lib/http/create-handler';
import { idempotencyKeyHeader } from '#lib/http/schemas/notifications';
import { runPath } from '#lib/http/schemas/paths';
import { jobSink } from '#lib/jobs/job-sink';
import { retryRunRoute } from '#lib/routes';
import { retryStore } from '#lib/store/runs/retries';

/**
 * POST …/runs/{runId}/retry: queues the run's failed deliveries again; 202 with the run. At most once
 * per Idempotency-Key: a repeat answers the run as it stands and queues nothing.
 */
export const handler = createHandler({
  route: retryRunRoute,
  access: 'admin',
  params: runPath,
  headers: idempotencyKeyHeader,
  success: { status: 202 },
  operation: async ({ params, headers, principal, deadline, recordMetric, requestId }) => {
    const key = headers['idempotency-key'];
    const { run, queued } = await retryRun(
      retryStore,
      jobSink(),
      params,
      { now: Date.now(), deadline, audit: auditContextOf(principal, requestId) },
      key === undefined ? undefined : { caller: callerOf(principal), key },
    );
    recordMetric('DeliveriesRetried', queued);
    return run;
  },
});
