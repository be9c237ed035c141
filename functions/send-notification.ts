import { sendNow } from '#lib/domain/dispatch';
import { notificationPath } from '#lib/domain/notification-input';
import { createHandler } from '#lib/http/create-handler';
import { jobSink } from '#lib/jobs/job-sink';
import { dispatchStore } from '#lib/store/runs';

/** POST /v1/deployments/{deploymentId}/notifications/{id}/send: a manual run now, answered 202 with its RunDto. */
export const handler = createHandler({
  access: 'admin',
  params: notificationPath,
  success: { status: 202 },
  operation: ({ params, remainingTimeMs }) =>
    sendNow(dispatchStore, jobSink(), params, { now: Date.now(), remainingTimeMs }),
});
