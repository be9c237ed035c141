import { countSettledRun } from '#lib/domain/governance/suspension';
import { reportOutcome } from '#lib/domain/runs/outcomes';
import { createHandler } from '#lib/http/create-handler';
import { jsonBody } from '#lib/http/json-body';
import { jobPath, outcomeInput } from '#lib/http/schemas/deliveries';
import { recordCompletedRun } from '#lib/metrics';
import { reportDeliveryOutcomeRoute } from '#lib/routes';
import { suspensionStore } from '#lib/store/governance/notification-suspension';
import { outcomeStore } from '#lib/store/runs/outcomes';

/** POST /v1/deliveries/{jobId}/outcome: the renderer reports what became of a job; 204. */
export const handler = createHandler({
  route: reportDeliveryOutcomeRoute,
  access: 'renderer',
  params: jobPath,
  body: jsonBody(outcomeInput),
  success: { status: 204 },
  operation: async ({ params, body, settings, recordMetric }) => {
    const result = await reportOutcome(outcomeStore, params.jobId, body, Date.now());
    if (result.applied)
      recordMetric(body.status === 'delivered' ? 'DeliveriesDelivered' : 'DeliveriesFailed', 1);
    // Whichever call completes the run records its totals: this report, its repeat, or the dispatcher's minute.
    if (result.completedRun) {
      recordCompletedRun(result.completedRun.recipients);
      await countSettledRun(
        suspensionStore,
        result.completedRun,
        settings.suspendAfterFailedRuns,
        Date.now(),
      );
    }
  },
});
