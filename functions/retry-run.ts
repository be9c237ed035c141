import { retryRun } from '#lib/domain/retry';
import { createHandler } from '#lib/http/create-handler';
import { runPath } from '#lib/http/schemas/paths';
import { jobSink } from '#lib/jobs/job-sink';
import { retryRunRoute } from '#lib/routes';
import { retryStore } from '#lib/store/retries';

/** POST …/runs/{runId}/retry: queues the run's failed deliveries again; 202 with the run. */
export const handler = createHandler({
  route: retryRunRoute,
  access: 'admin',
  params: runPath,
  success: { status: 202 },
  operation: async ({ params, deadline, recordMetric }) => {
    const { run, queued } = await retryRun(retryStore, jobSink(), params, {
      now: Date.now(),
      deadline,
    });
    recordMetric('DeliveriesRetried', queued);
    return run;
  },
});
