import { readdir } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomHex } from '#lib/clock';
import { config } from '#lib/config';
import { dispatchPass } from '#lib/domain/dispatch/dispatch-pass';
import { schedulePlanner } from '#lib/domain/schedules/schedule-planning';
import { outboxSink } from '#lib/jobs/outbox-sink';
import { type DynamoMeter, meterDynamoDb } from '#lib/local/dynamodb-meter';
import { dispatchStore } from '#lib/store/dispatch/dispatch';
import { documentClient } from '#lib/store/dynamo/client';
import { dueIndexKeys } from '#lib/store/dynamo/keys';
import { crash, injectDynamoDbFaults } from '#test/support/dynamodb-faults';
import { ADMIN_KEY, publishedDashboardFixture } from '#test/support/fixtures';
import { type LocalApi, startLocalApi } from '#test/support/local-api';

/**
 * Send-now at size and under load, through the local API over the real engine: the request does the
 * same few DynamoDB requests whatever the number of recipients and leaves the rest to the dispatcher;
 * a run is `dispatching` until every delivery is recorded, also when its pass died; and a second
 * send-now too soon, or while the first is dispatching, is refused with 429 and Retry-After.
 */

const base = '/v1/deployments/7/notifications';
const embedRecipients = (count: number, prefix: string) =>
  Array.from({ length: count }, (_, i) => ({
    embedTenantName: 'acme',
    externalId: `${prefix}-${i}@acme.example`,
  }));
const manual = (id: number, recipients: object[]) => ({
  id,
  deploymentId: 7,
  dashboardId: 70,
  scheduleType: 'DAILY',
  hour: 9,
  minute: 0,
  isEnabled: false,
  recipients,
});

let api: LocalApi;
let meter: DynamoMeter;

beforeAll(async () => {
  api = await startLocalApi(
    publishedDashboardFixture({
      notifications: [
        manual(710, embedRecipients(150, 'small')),
        manual(711, embedRecipients(450, 'large')),
        manual(712, [{ userId: 1 }]),
        manual(713, [{ userId: 1 }]),
        { ...manual(714, embedRecipients(5, 'scheduled')), isEnabled: true },
      ],
    }),
  );
  meter = meterDynamoDb(documentClient());
});

afterAll(async () => {
  meter.detach();
  await api.close();
});

const send = (id: number) => api.request('POST', `${base}/${id}/send`, { token: ADMIN_KEY });
const runs = async (id: number) =>
  (await api.request('GET', `${base}/${id}/runs`, { token: ADMIN_KEY })).body.items;
const pass = (now = Date.now()) =>
  dispatchPass(dispatchStore, outboxSink(config().outboxDir), {
    randomHex,
    now,
    misfireGraceMinutes: 60,
    planner: schedulePlanner,
  });

async function deliveries(id: number, runId: string) {
  const items: unknown[] = [];
  let after: string | undefined;
  do {
    const query = after ? `?first=200&after=${encodeURIComponent(after)}` : '?first=200';
    const page = await api.request('GET', `${base}/${id}/runs/${runId}/deliveries${query}`, {
      token: ADMIN_KEY,
    });
    items.push(...page.body.items);
    after = page.body.pageInfo.hasNextPage ? page.body.pageInfo.endCursor : undefined;
  } while (after);
  return items;
}

describe('send-now of many recipients', () => {
  it('answers after the same DynamoDB requests for 150 and 450 recipients; a pass then records every delivery', async () => {
    const requests: number[] = [];
    const answers = [];
    for (const id of [710, 711]) {
      meter.reset();
      const answer = await send(id);
      requests.push(meter.totalRequests());
      expect(answer.status).toBe(202);
      answers.push(answer.body);
    }
    expect(requests[0]).toBe(requests[1]);
    // Authentication, the notification and its dashboard, the limit and the run (one transaction),
    // then one page of recipients: the suppressions of their addresses, their deliveries and the run's progress.
    expect(requests[0]).toBeLessThanOrEqual(15);
    for (const run of answers) {
      expect(run).toMatchObject({ status: 'dispatching', recipients: { queued: 100, skipped: 0 } });
    }

    const summary = await pass();
    expect(summary.resumed).toBe(2);
    const [large] = await runs(711);
    expect(large).toMatchObject({
      runId: answers[1].runId,
      status: 'dispatched',
      recipients: { queued: 450, skipped: 0 },
    });
    expect(await deliveries(711, large.runId)).toHaveLength(450);
    const jobFiles = (await readdir(config().outboxDir)).filter((file) => file.endsWith('.json'));
    expect(jobFiles).toHaveLength(600);
  });
});

describe('the send-now limit', () => {
  it('answers 429 with Retry-After to a second send-now within the interval', async () => {
    const first = await send(712);
    expect(first.body.status).toBe('dispatched');
    const second = await send(712);
    expect(second.status).toBe(429);
    expect(second.body.code).toBe('too_many_requests');
    const retryAfter = Number(second.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(config().sendNowMinIntervalMs / 1000);
    expect(await runs(712)).toHaveLength(1);
  });

  it('accepts one of 20 send-nows sent at once', async () => {
    const answers = await Promise.all(Array.from({ length: 20 }, () => send(713)));
    const statuses = answers.map((answer) => answer.status).sort();
    expect(statuses).toEqual([202, ...Array(19).fill(429)]);
    expect(await runs(713)).toHaveLength(1);
  });
});

describe('a run whose pass died', () => {
  it('is dispatching, not dispatched, until a later pass takes it over and finishes it', async () => {
    const stored = await dispatchStore.findNotification({ deploymentId: 7, id: 714 });
    const instant = dueIndexKeys.instantOf(stored?.dueKey as string);
    const faults = injectDynamoDbFaults(documentClient());
    // The pass dies after claiming the run and moving the schedule entry (one transaction), as it
    // records its first page.
    faults.add({ operations: ['UpdateItem'], when: (call) => call === 1, fault: crash() });
    try {
      const died = await dispatchPass(dispatchStore, outboxSink(config().outboxDir), {
        randomHex,
        now: instant + 1_000,
        misfireGraceMinutes: 60,
        planner: schedulePlanner,
        pageSize: 2,
      });
      expect(died.failed).toBe(1);
    } finally {
      faults.detach();
    }
    const [run] = await runs(714);
    expect(run).toMatchObject({ trigger: 'schedule', status: 'dispatching', recipients: { queued: 0 } });

    await pass(instant + 3 * 60_000);
    const [finished] = await runs(714);
    expect(finished).toMatchObject({
      runId: run.runId,
      status: 'dispatched',
      recipients: { queued: 5, skipped: 0 },
    });
  });
});
