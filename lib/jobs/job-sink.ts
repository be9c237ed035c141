import { config } from '#lib/config';
import type { JobSink } from '#lib/domain/dispatch';
import { outboxSink } from '#lib/jobs/outbox-sink';
import { sqsSink } from '#lib/jobs/sqs-sink';

let sink: JobSink | undefined;

/** The container's sink: the renderer's queue when one is configured, else the local outbox folder. */
export function jobSink(): JobSink {
  const { deliveryQueueUrl, outboxDir, region } = config();
  sink ??= deliveryQueueUrl ? sqsSink(deliveryQueueUrl, undefined, region) : outboxSink(outboxDir);
  return sink;
}
