import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { randomHex } from '#lib/clock';
import { config } from '#lib/config';
import { dispatchPass } from '#lib/domain/dispatch/dispatch-pass';
import { schedulePlanner } from '#lib/domain/schedules/schedule-planning';
import { jobSink } from '#lib/jobs/job-sink';
import { dispatchStore } from '#lib/store/dispatch/dispatch';
import { documentClient, tableName } from '#lib/store/dynamo/client';
import * as keys from '#lib/store/dynamo/item-keys';
import { getItem } from '#lib/store/dynamo/items';
import {
  crash,
  type DynamoFaults,
  type Fault,
  injectDynamoDbFaults,
  throttling,
} from '#test/support/dynamodb-faults';
import { ADMIN_KEY, publishedDashboardFixture } from '#test/support/fixtures';
import { type ApiResponse, type LocalApi, startLocalApi } from '#test/support/local-api';
import { platformRenderer } from '#test/support/tokens';

/**
 * Send-now, test send and retry with an Idempotency-Key, through the local API over the real engine:
 * whichever write of the first request the process dies at (before the write, or after it with the
 * answer lost), a repeat of the key completes the request exactly once (one run, each job once); the
 * same key with another body is 422 and while the first is in flight 409; a repeat is never refused
 * by the send-now interval. And a refusal did nothing: a retry racing a delete answers 404 only
 * having sent no job, and after a delete retries and keyed repeats are 404.
 */

const platform = platformRenderer('keyed-sends');
const renderer = () => platform.token();

const base = '/v1/deployments/7/notifications';
const WRITES = ['PutItem', 'UpdateItem', 'DeleteItem', 'TransactWriteItems', 'BatchWriteItem'];
/** Enough notifications for every write of the longest request, per way of dying. */
const PER_LOOP = 8;
const SEND_NOW_IDS = 100;
const TEST_SEND_IDS = 200;
const RETRY_IDS = 300;

const embedRecipients = (count: number, prefix: string) =>
  Array.from({ length: count }, (_, i) => ({
    embedTenantName: 'acme',
    externalId: `${prefix}-${i}@acme.example`,
  }));
const notification = (id: number, recipients: object[] = embedRecipients(3, `r${id}`)) => ({
  id,
  deploymentId: 7,
  dashboardId: 70,
  scheduleType: 'DAILY',
  hour: 9,
  isEnabled: false,
  recipients,
});
const loopIds = (first: number) => Array.from({ length: 2 * PER_LOOP }, (_, i) => first + i);

let api: LocalApi;
let faults: DynamoFaults;

beforeAll(async () => {
  api = await startLocalApi(
    publishedDashboardFixture({
      platform,
      notifications: [
        ...[...loopIds(SEND_NOW_IDS), ...loopIds(TEST_SEND_IDS), ...loopIds(RETRY_IDS)].map((id) =>
          notification(id),
        ),
        ...[400, 401, 402, 403, 404, 405, 406, 407, 408].map((id) => notification(id)),
        notification(410, embedRecipients(150, 'race')),
        notification(411, embedRecipients(3, 'early')),
      ],
    }),
  );
  faults = injectDynamoDbFaults(documentClient());
});
afterEach(() => faults.clear());
afterAll(async () => {
  faults.detach();
  await api.close();
});

const withKey = (key?: string): Record<string, string> =>
  key === undefined ? {} : { 'idempotency-key': key };
const send = (id: number, key?: string, body?: unknown) =>
  api.request('POST', `${base}/${id}/send`, { token: ADMIN_KEY, body, headers: withKey(key) });
const retry = (id: number, runId: string, key?: string) =>
  api.request('POST', `${base}/${id}/runs/${runId}/retry`, { token: ADMIN_KEY, headers: withKey(key) });
const runsOf = async (id: number) =>
  (await api.request('GET', `${base}/${id}/runs?first=200`, { token: ADMIN_KEY })).body.items;
const report = (jobId: string, body: unknown) =>
  api.request('POST', `/v1/deliveries/${encodeURIComponent(jobId)}/outcome`, { token: renderer(), body });
const TEST_RECIPIENTS = { recipients: [{ userId: 1 }, { email: 'bob@example.com' }] };

interface Job {
  jobId: string;
  runId: string;
  notificationId: number;
  attempt: number;
}

/** The jobs in the outbox for a notification: one file per job id, so a job sent again is counted once. */
async function jobsOf(id: number): Promise<Job[]> {
  const dir = config().outboxDir;
  const files = (await readdir(dir).catch(() => [] as string[])).filter((file) => file.endsWith('.json'));
  const jobs = await Promise.all(
    files.map(async (file) => JSON.parse(await readFile(join(dir, file), 'utf8')) as Job),
  );
  return jobs.filter((job) => job.notificationId === id);
}

/** A dispatcher pass after every lease of a dead request has run out: it finishes their runs. */
const passAfterLeases = () =>
  dispatchPass(dispatchStore, jobSink(), {
    randomHex,
    now: Date.now() + 3 * 60_000,
    planner: schedulePlanner,
    misfireGraceMinutes: 60,
  });

/** A dead holder's claim lasts its lease (a minute): this is that minute passing. */
async function leaseRunsOut(key: string): Promise<void> {
  await documentClient()
    .send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.idempotencyRecord(7, 'USER#1', key),
        UpdateExpression: 'SET leaseUntil = :past',
        ConditionExpression: '#state = :pending',
        ExpressionAttributeNames: { '#state': 'state' },
        ExpressionAttributeValues: { ':past': Date.now() - 1, ':pending': 'pending' },
      }),
    )
    .catch(() => {});
}

/**
 * The request with the process dying at its `k`-th write: before the write reaches DynamoDB
 * (`before`) or after it took effect, its answer lost (`lost`). Nothing after that is written.
 */
async function diesAtWrite(k: number, mode: 'before' | 'lost', request: () => Promise<ApiResponse>) {
  const death: Fault = mode === 'before' ? crash() : { kind: 'lost' };
  faults.add({ operations: WRITES, when: (call) => call === k, fault: death });
  faults.add({ operations: WRITES, when: (call) => call > k, fault: crash() });
  try {
    return await request();
  } finally {
    faults.clear();
  }
}

/**
 * For k = 1, 2, …: the first request dies at its k-th write, its lease runs out, the repeat
 * completes it, and `check` sees the outcome; until a first request makes fewer than k writes.
 */
async function everyWrite(
  ids: number[],
  request: (id: number, key: string) => Promise<ApiResponse>,
  check: (id: number, repeat: ApiResponse, key: string) => Promise<void>,
): Promise<number> {
  let covered = 0;
  for (const mode of ['before', 'lost'] as const) {
    for (let k = 1; ; k++) {
      const id = ids.shift();
      if (id === undefined) throw new Error('more writes than notifications prepared');
      const key = `dies-${id}-${mode}-${k}`;
      const first = await diesAtWrite(k, mode, () => request(id, key));
      await leaseRunsOut(key);
      const repeat = await request(id, key);
      expect(repeat.status, `${mode} ${k}: ${JSON.stringify(repeat.body)}`).toBe(202);
      await check(id, repeat, key);
      if (first.status === 202) break;
      expect(first.status, `${mode} ${k}`).toBe(500);
      covered += 1;
    }
  }
  return covered;
}

async function expectOneRunWithEachJobOnce(id: number, repeat: ApiResponse, attempt = 1) {
  const runs = await runsOf(id);
  expect(runs.map((run: { runId: string }) => run.runId)).toEqual([repeat.body.runId]);
  const jobs = await jobsOf(id);
  expect(jobs).toHaveLength(runs[0].recipients.queued);
  expect(jobs.length).toBeGreaterThan(0);
  for (const job of jobs) expect(job).toMatchObject({ runId: repeat.body.runId, attempt });
}

/** A manual run of `id` with every delivery failed at attempt 1; its jobs are then out of the outbox. */
async function runWithFailures(id: number): Promise<string> {
  const { body: run } = await send(id);
  if (run.status === 'dispatching') await passAfterLeases();
  const jobs = await jobsOf(id);
  for (const job of jobs) {
    expect((await report(job.jobId, { status: 'failed', error: 'down', attempt: 1 })).status).toBe(204);
  }
  return run.runId;
}

describe('a repeat with the Idempotency-Key, whichever write the first request died at', () => {
  it('send-now: one run, each job once', async () => {
    const covered = await everyWrite(loopIds(SEND_NOW_IDS), send, async (id, repeat) => {
      // A run the first request left dispatching under its lease: the dispatcher finishes it.
      await passAfterLeases();
      await expectOneRunWithEachJobOnce(id, repeat);
    });
    // The claim, the run's transaction, the page's deliveries and the run's end, in both ways.
    expect(covered).toBeGreaterThanOrEqual(8);
  });

  it('test send: one run, each job once', async () => {
    const covered = await everyWrite(
      loopIds(TEST_SEND_IDS),
      (id, key) => send(id, key, TEST_RECIPIENTS),
      async (id, repeat) => {
        expect(repeat.body).toMatchObject({ trigger: 'test', recipients: { queued: 2 } });
        await expectOneRunWithEachJobOnce(id, repeat);
      },
    );
    expect(covered).toBeGreaterThanOrEqual(4);
  });

  it('retry: each failed delivery queued once more, and never again for the same key', async () => {
    const ids = loopIds(RETRY_IDS);
    const runIds = new Map<number, string>();
    for (const id of ids) runIds.set(id, await runWithFailures(id));
    const covered = await everyWrite(
      ids,
      (id, key) => retry(id, runIds.get(id) as string, key),
      async (id, repeat, key) => {
        expect(repeat.body.recipients).toMatchObject({ queued: 3, failed: 0 });
        await expectOneRunWithEachJobOnce(id, repeat, 2);
        // The second attempt fails too: a repeat of the same key still queues nothing.
        const [job] = await jobsOf(id);
        await report(job?.jobId as string, { status: 'failed', error: 'down', attempt: 2 });
        const again = await retry(id, repeat.body.runId, key);
        expect(again.status).toBe(202);
        await expectOneRunWithEachJobOnce(id, repeat, 2);
      },
    );
    expect(covered).toBeGreaterThanOrEqual(4);
  });
});

describe('the same key', () => {
  it('with another body, or on another route, is 422 and makes nothing', async () => {
    const first = await send(400, 'mixed-1');
    expect(first.status).toBe(202);
    const other = await send(400, 'mixed-1', TEST_RECIPIENTS);
    expect(other.status).toBe(422);
    expect(other.body.code).toBe('idempotency_key_mismatch');
    expect((await retry(400, first.body.runId, 'mixed-1')).body.code).toBe('idempotency_key_mismatch');
    expect(await runsOf(400)).toHaveLength(1);
  });

  it('within the send-now interval answers 202 with the first run, where no key is 429', async () => {
    const first = await send(401, 'interval-1');
    const again = await send(401, 'interval-1');
    expect(again.status).toBe(202);
    expect(again.body.runId).toBe(first.body.runId);
    expect((await send(401)).status).toBe(429);
    const test = await send(402, 'interval-2', TEST_RECIPIENTS);
    expect((await send(402, 'interval-2', TEST_RECIPIENTS)).body.runId).toBe(test.body.runId);
    expect(await runsOf(401)).toHaveLength(1);
    expect(await runsOf(402)).toHaveLength(1);
  });

  it('while the first request is in flight is 409, and only the first makes a run', async () => {
    const failedRun = await runWithFailures(408);
    const cases: [number, () => Promise<ApiResponse>][] = [
      [403, () => send(403, 'flight-1')],
      [404, () => send(404, 'flight-2', TEST_RECIPIENTS)],
      [408, () => retry(408, failedRun, 'flight-3')],
    ];
    for (const [id, request] of cases) {
      let resume: () => void = () => {};
      const paused = new Promise<void>((resolve) => {
        resume = resolve;
      });
      let arrived: () => void = () => {};
      const atTransaction = new Promise<void>((resolve) => {
        arrived = resolve;
      });
      faults.add({
        operations: ['TransactWriteItems'],
        when: (call) => call === 1,
        fault: {
          kind: 'hook',
          run: () => {
            arrived();
            return paused;
          },
        },
      });
      const first = request();
      await atTransaction;
      const second = await request();
      resume();
      expect(second.status).toBe(409);
      expect(second.body.code).toBe('conflict');
      expect((await first).status).toBe(202);
      expect(await runsOf(id)).toHaveLength(1);
      // Only the first request queued anything: one job per delivery, at one attempt.
      const jobs = await jobsOf(id);
      expect(new Set(jobs.map((job) => job.attempt)).size).toBe(1);
      faults.clear();
    }
  });

  it('after a 503 is given back: its repeat goes ahead at once; a 503 without a key says to use one', async () => {
    faults.add({ operations: ['TransactWriteItems'], fault: throttling() });
    const unkeyed = await send(407);
    const keyed = await send(407, 'throttled-1');
    faults.clear();
    expect([unkeyed.status, keyed.status]).toEqual([503, 503]);
    expect(unkeyed.body.message).toMatch(/repeat it with the same Idempotency-Key header/);
    expect(keyed.body.message).toMatch(/safe to repeat with the same Idempotency-Key header/);
    const repeat = await send(407, 'throttled-1');
    expect(repeat.status).toBe(202);
    expect((await runsOf(407)).map((run: { runId: string }) => run.runId)).toEqual([repeat.body.runId]);
  });

  it('on a refused request is given back: the repeat after a 429 goes ahead', async () => {
    await send(405);
    const refused = await send(405, 'refused-1');
    expect(refused.status).toBe(429);
    const record = await getItem(keys.idempotencyRecord(7, 'USER#1', 'refused-1'));
    expect(record).toBeUndefined();
  });
});

describe('a retry racing a delete', () => {
  it('answers 404 only having sent no job, and writes nothing after the delete', async () => {
    const runId = await runWithFailures(410);
    const attemptTwo = async () => (await jobsOf(410)).filter((job) => job.attempt === 2).length;
    // The delete lands after the retry's first check and before its first record.
    faults.add({
      operations: ['TransactWriteItems'],
      when: (call) => call === 1,
      fault: {
        kind: 'hook',
        run: async () => {
          faults.clear();
          expect((await api.request('DELETE', `${base}/410`, { token: ADMIN_KEY })).status).toBe(204);
        },
      },
    });
    const answer = await retry(410, runId);
    const sent = await attemptTwo();
    if (answer.status === 404) expect(sent).toBe(0);
    else expect(answer.status).toBe(202);
    // Nothing of the retry was recorded: every delivery is still failed at attempt 1.
    const run = await getItem(keys.run(7, 410, runId));
    expect(run?.recipients).toMatchObject({ failed: 150, queued: 150 });
  });

  it('answers 404 and sends nothing when the delete lands before its first page leaves', async () => {
    const runId = await runWithFailures(411);
    // The retry's second Query reads its failed deliveries, after the notification and the run.
    faults.add({
      operations: ['Query'],
      when: (call) => call === 2,
      fault: {
        kind: 'hook',
        run: async () => {
          faults.clear();
          await api.request('DELETE', `${base}/411`, { token: ADMIN_KEY });
        },
      },
    });
    expect((await retry(411, runId)).status).toBe(404);
    expect((await jobsOf(411)).filter((job) => job.attempt === 2)).toEqual([]);
  });
});

describe('after a delete', () => {
  it('a retry, even of a run with nothing failed, and every keyed repeat are 404', async () => {
    const sent = await send(406, 'gone-1');
    const retried = await retry(406, sent.body.runId, 'gone-3');
    expect(retried.status).toBe(202);
    const created = await api.request('POST', base, {
      token: ADMIN_KEY,
      headers: withKey('gone-4'),
      body: { dashboardId: 70, scheduleType: 'DAILY', hour: 7 },
    });
    expect(created.status).toBe(201);

    expect((await api.request('DELETE', `${base}/406`, { token: ADMIN_KEY })).status).toBe(204);
    expect((await api.request('DELETE', `${base}/${created.body.id}`, { token: ADMIN_KEY })).status).toBe(
      204,
    );
    expect((await retry(406, sent.body.runId)).status).toBe(404);
    expect((await retry(406, sent.body.runId, 'gone-3')).status).toBe(404);
    expect((await send(406, 'gone-1')).status).toBe(404);
    const createdAgain = await api.request('POST', base, {
      token: ADMIN_KEY,
      headers: withKey('gone-4'),
      body: { dashboardId: 70, scheduleType: 'DAILY', hour: 7 },
    });
    expect(createdAgain.status).toBe(404);
  });
});
