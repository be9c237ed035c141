import { retryRun } from '#lib/domain/retry';
import { credentialsIn } from '#lib/http/authentication';
import { createHandler } from '#lib/http/create-handler';
import { runPath } from '#lib/http/schemas/paths';
import { runOutput } from '#lib/http/schemas/runs';
import { jobSink } from '#lib/jobs/job-sink';
import { recordBusinessMetric } from '#lib/metrics';
import { retryStore } from '#lib/store/retries';
import { credentialDirectory } from '#lib/store/users';

/** POST …/runs/{runId}/retry: queues the run's failed deliveries again; 202 with the run. */
export const handler = createHandler({
  access: 'admin',
  authentication: credentialsIn(credentialDirectory),
  params: runPath,
  success: { status: 202 },
  response: runOutput,
  operation: async ({ params, remainingTimeMs }) => {
    const { run, queued } = await retryRun(retryStore, jobSink(), params, {
      now: Date.now(),
      remainingTimeMs,
    });
    recordBusinessMetric('DeliveriesRetried', queued);
    return run;
  },
});
