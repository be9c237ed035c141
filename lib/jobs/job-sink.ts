import { config } from '#lib/config';
import type { JobSink } from '#lib/domain/dispatch';
import { unsubscribeTargetOf, unsubscribeToken } from '#lib/domain/unsubscribe';
import { outboxSink } from '#lib/jobs/outbox-sink';
import { sqsSink } from '#lib/jobs/sqs-sink';
import { unsubscribeKey } from '#lib/secrets/unsubscribe-key';

let sink: JobSink | undefined;

/**
 * Gives each job its recipient's one-click unsubscribe link: `<base URL>/v1/unsubscribe?token=…`, the
 * token signed with the stage's key.
 */
function withUnsubscribeLinks(transport: JobSink, baseUrl: string, key: () => Promise<Buffer>): JobSink {
  return {
    async send(jobs) {
      const signingKey = await key();
      await transport.send(
        jobs.map((job) => ({
          ...job,
          unsubscribeUrl: `${baseUrl}/v1/unsubscribe?token=${unsubscribeToken(unsubscribeTargetOf(job), signingKey)}`,
        })),
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
