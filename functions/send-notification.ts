import { clockFrom, randomHex } from '#lib/clock';
import { auditContextOf } from '#lib/domain/audit/audit';
import { sendNow } from '#lib/domain/runs/send-now';
import { testSend } from '#lib/domain/runs/test-send';
import { callerOf } from '#lib/http/caller';
import { createHandler } from '#lib/http/create-handler';
import { jsonBody } from '#lib/http/json-body';
import { idempotencyKeyHeader } from '#lib/http/schemas/notifications';
import { notificationPath } from '#lib/http/schemas/paths';
import { sendNowInput } from '#lib/http/schemas/runs';
import { jobSink } from '#lib/jobs/job-sink';
import { sendNotificationRoute } from '#lib/routes';
import { sendNowStore } from '#lib/store/runs/send-now';
import { testSendStore } from '#lib/store/runs/test-sends';

/**
 * POST /v1/deployments/{deploymentId}/notifications/{id}/send: a manual run now, or with `recipients` a
 * test run to exactly them; answered 202 with its RunDto (`dispatching` while a large run goes on in the
 * background); 429 when too soon after the last send-now or test send. At most one run per
 * Idempotency-Key: a repeat answers the run the first request made, as it stands.
 */
export const handler = createHandler({
  route: sendNotificationRoute,
  access: 'admin',
  params: notificationPath,
  headers: idempotencyKeyHeader,
  body: jsonBody(sendNowInput, { optional: true }),
  success: { status: 202 },
  operation: async ({ params, headers, body, principal, settings, recordMetric, requestId }) => {
    const now = Date.now();
    const options = {
      now,
      clock: clockFrom(now),
      randomHex,
      minIntervalMs: settings.sendNowMinIntervalMs,
      audit: auditContextOf(principal, requestId),
    };
    const key = headers['idempotency-key'];
    const idempotency = key === undefined ? undefined : { caller: callerOf(principal), key };
    const run = body.recipients
      ? await testSend(testSendStore, jobSink(), params, body.recipients, options, idempotency)
      : await sendNow(sendNowStore, jobSink(), params, options, idempotency);
    recordMetric('RunsCreated', 1);
    recordMetric('DeliveriesQueued', run.recipients.queued);
    recordMetric('DeliveriesSkipped', run.recipients.skipped);
    return run;
  },
});
