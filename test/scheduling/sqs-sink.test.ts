import { type SendMessageBatchCommandInput, SQSClient } from '@aws-sdk/client-sqs';
import { describe, expect, it } from 'vitest';
import type { DeliveryJob } from '#lib/domain/runs/runs';
import { SQS_BATCH_BYTES, SQS_BATCH_LIMIT, sqsSink } from '#lib/jobs/sqs-sink';

/**
 * SQS has no local engine, so these tests record the requests at the SDK's boundary: a middleware at
 * the start of the client's stack takes each command's input and answers as SQS would, refusing a
 * batch past its limits the way the service does.
 */
const QUEUE_URL = 'https://sqs.eu-west-1.amazonaws.com/123456789012/deliveries';

function recordingSqs(failEntry: (id: string, call: number) => boolean = () => false) {
  const calls: SendMessageBatchCommandInput[] = [];
  const client = new SQSClient({
    region: 'eu-west-1',
    credentials: { accessKeyId: 'x', secretAccessKey: 'y' },
  });
  client.middlewareStack.add(
    () => async (args) => {
      const input = args.input as SendMessageBatchCommandInput;
      calls.push(input);
      const entries = input.Entries ?? [];
      const bytes = entries.reduce((sum, entry) => sum + Buffer.byteLength(entry.MessageBody ?? ''), 0);
      if (entries.length > SQS_BATCH_LIMIT)
        throw Object.assign(new Error('too many'), { name: 'TooManyEntriesInBatchRequest' });
      if (bytes > SQS_BATCH_BYTES)
        throw Object.assign(new Error('too long'), { name: 'BatchRequestTooLong' });
      const failed = entries.filter((entry) => failEntry(entry.Id ?? '', calls.length));
      return {
        output: {
          $metadata: {},
          Successful: entries
            .filter((entry) => !failed.includes(entry))
            .map((entry) => ({ Id: entry.Id, MessageId: entry.Id })),
          Failed: failed.map((entry) => ({ Id: entry.Id, Code: 'InternalError', SenderFault: false })),
        },
      } as never;
    },
    { step: 'initialize', name: 'recordSqs' },
  );
  return { client, calls };
}

const job = (n: number, padding = 0): DeliveryJob =>
  ({
    jobId: n.toString(16).padStart(32, '0'),
    runId: '2026-11-23T09:00:00.000Z',
    deploymentId: 1,
    notificationId: 700,
    scheduledFor: '2026-11-23T09:00:00.000Z',
    dashboard: { id: 10, publicId: 'ops-kpis' },
    notificationFormat: 'PDF',
    filters:
      padding > 0 ? [{ member: 'Orders.region', operator: 'equals', values: ['x'.repeat(padding)] }] : null,
    timeGrains: null,
    recipient: { type: 'USER', userId: n },
  }) as unknown as DeliveryJob;

describe('the SQS delivery sink', () => {
  it('sends every job once, ten per call, each message identified by its job id', async () => {
    const { client, calls } = recordingSqs();
    const jobs = Array.from({ length: 25 }, (_, n) => job(n + 1));
    await sqsSink(QUEUE_URL, client).send(jobs);

    expect(calls.map((call) => call.Entries?.length)).toEqual([10, 10, 5]);
    expect(calls.every((call) => call.QueueUrl === QUEUE_URL)).toBe(true);
    const sent = calls.flatMap((call) => call.Entries ?? []);
    expect(sent.map((entry) => entry.Id).sort()).toEqual(jobs.map((j) => j.jobId).sort());
    for (const entry of sent) {
      expect(entry.Id).toMatch(/^[A-Za-z0-9_-]{1,80}$/);
      expect(JSON.parse(entry.MessageBody ?? '')).toEqual(jobs.find((j) => j.jobId === entry.Id));
    }
  });

  it('splits a batch by bytes when large jobs would pass 1 MiB together', async () => {
    const { client, calls } = recordingSqs();
    const jobs = Array.from({ length: 10 }, (_, n) => job(n + 1, 300 * 1024));
    await sqsSink(QUEUE_URL, client).send(jobs);

    expect(calls.length).toBeGreaterThan(1);
    expect(calls.flatMap((call) => call.Entries ?? []).length).toBe(10);
  });

  it('sends again only the entries SQS refused', async () => {
    const refusedOnce = job(3).jobId;
    const { client, calls } = recordingSqs((id, call) => id === refusedOnce && call === 1);
    await sqsSink(QUEUE_URL, client).send([job(1), job(2), job(3)]);

    expect(calls.map((call) => call.Entries?.map((entry) => entry.Id))).toEqual([
      [job(1).jobId, job(2).jobId, refusedOnce],
      [refusedOnce],
    ]);
  });

  it('fails the pass when SQS keeps refusing a job, so a later pass sends it again', async () => {
    const { client, calls } = recordingSqs((id) => id === job(2).jobId);
    await expect(sqsSink(QUEUE_URL, client).send([job(1), job(2)])).rejects.toThrow(/refused 1 delivery job/);
    expect(calls.length).toBe(5);
  });
});
