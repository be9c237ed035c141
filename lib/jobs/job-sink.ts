import { config } from '#lib/config';
import type { JobSink } from '#lib/domain/dispatch/dispatch-ports';
import { unsubscribeTargetOf, unsubscribeToken } from '#lib/domain/unsubscribe/unsubscribe';
import { outboxSink } from '#lib/jobs/outbox-sink';
import { sqsSink } from '#lib/jobs/sqs-sink';
import { unsubscribeKey } from '#lib/secrets/unsubscribe-key';

let sink: JobSink | undefined;

/**
 * Gives each job its recipient's one-click unsubscribe link: `<base URL>/v1/unsubscribe?token=…`, the
 * token naming the job's subscription, signed with the stage's key.
 */
function withUnsubscribeLinks(transport: JobSink, baseUrl: string, key: () => Promise<Buffer>): JobSink {
  return {
    async send(jobs) {
      const signingKey = await key();
      await transport.send(
        jobs.map((job) => {
          // The subscription's nonce goes out inside the signed token only, never as a field of the job.
          const { subscriptionNonce: _, ...sent } = job;
          const token = unsubscribeToken(unsubscribeTargetOf(job), signingKey);
          return { ...sent, unsubscribeUrl: `${baseUrl}/v1/unsubscribe?token=${token}` };
        }),
      );
    },
  };
}

/** The container's sink: the renderer's queue when one is configured, else the local outbox folder. */
export function jobSink(): JobSink {
  const { deliveryQueueUrl, outboxDir, region, publicBaseUrl } = config();
  sink ??= withUnsubscribeLinks(
    deliveryQueueUrl ? sqsSink(deliveryQueueUrl, undefined, region) : outboxSink(outboxDir),
    publicBaseUrl,
    unsubscribeKey,
  );
  return sink;
}
