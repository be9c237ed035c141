import { SendMessageBatchCommand, SQSClient } from '@aws-sdk/client-sqs';
import { backoff, chunkWithin, inParallel } from '#lib/concurrency';
import type { JobSink } from '#lib/domain/dispatch/dispatch-ports';

/** SQS takes at most ten messages per batch call, and 1 MiB of message bodies together. */
export const SQS_BATCH_LIMIT = 10;
export const SQS_BATCH_BYTES = 1024 * 1024;
const MAX_ATTEMPTS = 5;
const CONCURRENCY = 8;

/**
 * The deployed sink: one message per job on the renderer's queue, ten per call. Entries SQS refuses
 * are sent again with backoff; when they keep failing the pass fails and the run's lease lets a later
 * pass send the page again. The message id is the job id, so a job sent twice can be dropped by it.
 */
export function sqsSink(queueUrl: string, client?: SQSClient, region?: string): JobSink {
  const sqs = client ?? new SQSClient({ region });
  return {
    async send(jobs) {
      // A job carries the notification's filters and the recipient's properties (hundreds of KB at
      // most): ten of them can pass the call's byte limit, which SQS refuses as a whole, on every retry.
      const messages = jobs.map((job) => ({ job, body: JSON.stringify(job) }));
      const calls = chunkWithin(messages, SQS_BATCH_LIMIT, SQS_BATCH_BYTES, ({ body }) =>
        Buffer.byteLength(body),
      );
      await inParallel(calls, CONCURRENCY, async (slice) => {
        let pending = slice;
        for (let attempt = 1; pending.length > 0; attempt++) {
          if (attempt > MAX_ATTEMPTS) throw new Error(`SQS refused ${pending.length} delivery job(s)`);
          if (attempt > 1) await backoff(attempt - 1, 50);
          const { Failed = [] } = await sqs.send(
            new SendMessageBatchCommand({
              QueueUrl: queueUrl,
              Entries: pending.map(({ job, body }) => ({ Id: job.jobId, MessageBody: body })),
            }),
          );
          const failed = new Set(Failed.map((entry) => entry.Id));
          pending = pending.filter(({ job }) => failed.has(job.jobId));
        }
      });
    },
  };
}
