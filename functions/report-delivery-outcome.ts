import { reportOutcome } from '#lib/domain/outcomes';
import { credentialsIn } from '#lib/http/authentication';
import { createHandler } from '#lib/http/create-handler';
import { jobPath, outcomeInput } from '#lib/http/schemas/deliveries';
import { recordBusinessMetric, recordCompletedRun } from '#lib/metrics';
import { outcomeStore } from '#lib/store/outcomes';
import { credentialDirectory } from '#lib/store/users';

/** POST /v1/deliveries/{jobId}/outcome: the renderer reports what became of a job; 204. */
export const handler = createHandler({
  access: 'renderer',
  authentication: credentialsIn(credentialDirectory),
  params: jobPath,
  body: outcomeInput,
  success: { status: 204 },
  operation: async ({ params, body }) => {
    const result = await reportOutcome(outcomeStore, params.jobId, body, Date.now());
    if (!result.applied) return;
    recordBusinessMetric(body.status === 'delivered' ? 'DeliveriesDelivered' : 'DeliveriesFailed', 1);
    if (result.completedRun) recordCompletedRun(result.completedRun.recipients);
  },
});
