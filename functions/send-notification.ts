import { config } from '#lib/config';
import { sendNow } from '#lib/domain/dispatch';
import { testSend } from '#lib/domain/test-send';
import { credentialsIn } from '#lib/http/authentication';
import { createHandler } from '#lib/http/create-handler';
import { notificationPath } from '#lib/http/schemas/paths';
import { runOutput, sendNowInput } from '#lib/http/schemas/runs';
import { jobSink } from '#lib/jobs/job-sink';
import { recordBusinessMetric } from '#lib/metrics';
import { sendNowStore } from '#lib/store/send-now';
import { testSendStore } from '#lib/store/test-sends';
import { credentialDirectory } from '#lib/store/users';

/**
 * POST /v1/deployments/{deploymentId}/notifications/{id}/send: a manual run now, or with `recipients` a
 * test run to exactly them; answered 202 with its RunDto (`dispatching` while a large run goes on in the
 * background); 429 when too soon after the last send-now or test send.
 */
export const handler = createHandler({
  access: 'admin',
  authentication: credentialsIn(credentialDirectory),
  params: notificationPath,
  body: sendNowInput,
  bodyOptional: true,
  success: { status: 202 },
  response: runOutput,
  operation: async ({ params, body }) => {
    const options = { now: Date.now(), minIntervalMs: config().sendNowMinIntervalMs };
    const run = body.recipients
      ? await testSend(testSendStore, jobSink(), params, body.recipients, options)
      : await sendNow(sendNowStore, jobSink(), params, options);
    recordBusinessMetric('RunsCreated', 1);
    recordBusinessMetric('DeliveriesQueued', run.recipients.queued);
    recordBusinessMetric('DeliveriesSkipped', run.recipients.skipped);
    return run;
  },
});
