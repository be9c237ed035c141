import { mkdtemp, readdir, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DeleteCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { randomHex } from '#lib/clock';
import { dispatchPass } from '#lib/domain/dispatch/dispatch-pass';
import type { JobSink } from '#lib/domain/dispatch/dispatch-ports';
import type { DispatchOptions } from '#lib/domain/dispatch/pass-context';
import type { Notification } from '#lib/domain/notifications/notification';
import { updateNotification } from '#lib/domain/notifications/notification-writes';
import { pageWindow } from '#lib/domain/paging';
import { listRuns } from '#lib/domain/runs/run-lists';
import { type DeliveryJob, toDeliveryDto, toRunDto } from '#lib/domain/runs/runs';
import { sendNow } from '#lib/domain/runs/send-now';
import { schedulePlanner } from '#lib/domain/schedules/schedule-planning';
import { NotFoundError, TooManyRequestsError } from '#lib/errors';
import { parseFixture } from '#lib/fixtures/fixture';
import { ensureTable, loadFixture } from '#lib/fixtures/load-fixture';
import { outboxSink } from '#lib/jobs/outbox-sink';
import { encodeRecipient } from '#lib/store/codecs/recipients';
import { dispatchStore } from '#lib/store/dispatch/dispatch';
import { batchWriteAll } from '#lib/store/dynamo/batch';
import { documentClient, tableName } from '#lib/store/dynamo/client';
import * as keys from '#lib/store/dynamo/item-keys';
import { dueIndexKeys } from '#lib/store/dynamo/keys';
import { notificationItems } from '#lib/store/notifications/notification-items';
import { notificationUpdate } from '#lib/store/notifications/notifications';
import { deliveryListing, runListing } from '#lib/store/runs/run-lists';
import { sendNowStore } from '#lib/store/runs/send-now';
import { testAudit, testAuditEvent } from '#test/support/domain-fixtures';
import { barrier, crash, injectDynamoDbFaults } from '#test/support/dynamodb-faults';
import { consoleUsers } from '#test/support/fixtures';

/**
 * The dispatcher against the real local engine: what a pass fires, who gets a delivery, and that
 * no instant fires twice or is lost with two dispatchers at once or a crash between any two steps.
 */

const MINUTE = 60_000;
const WRITE_OPERATIONS = ['BatchWriteItem', 'TransactWriteItems', 'PutItem', 'UpdateItem', 'DeleteItem'];
/** Monday 2026-11-23, 09:00 in Berlin (CET, UTC+1). */
const NINE_BERLIN = Date.parse('2026-11-23T08:00:00Z');
const DAY = 24 * 60 * MINUTE;

const fixture = {
  users: consoleUsers,
  deployments: [{ id: 7, name: 'Production' }],
  dashboards: [
    {
      id: 70,
      deploymentId: 7,
      publicId: 'sales',
      title: 'Sales',
      published: true,
      sharedWithTenants: ['acme'],
    },
    { id: 71, deploymentId: 7, publicId: 'draft', title: 'Draft', published: false },
    {
      id: 72,
      deploymentId: 7,
      publicId: 'pulse',
      title: 'Pulse',
      published: true,
      sharedWithAllEmbedUsers: true,
    },
  ],
  embedTenants: [
    { name: 'acme', issuer: 'https://auth.acme.example', jwks: { keys: [] } },
    { name: 'globex', issuer: 'https://auth.globex.example', jwks: { keys: [] } },
  ],
};

beforeAll(async () => {
  await ensureTable();
  await loadFixture(parseFixture(fixture));
});

let nextId = 5000;
const created: number[] = [];

type Recipient = Parameters<typeof encodeRecipient>[1];
const user = (userId: number): Recipient => ({ type: 'USER', userId });
const embed = (embedTenantName: string, externalId: string, embedUserId: number): Recipient => ({
  type: 'EMBED_USER',
  embedTenantName,
  normalizedExternalId: externalId.toLowerCase(),
  externalId,
  embedUserId,
  email: `${externalId.toLowerCase()}@example.com`,
  properties: { securityContext: { region: 'EU' }, groups: ['sales'] },
});

/** A DAILY 09:00 Berlin notification written as of `writtenAt`, with its recipient rows. */
async function notification(
  recipients: Recipient[],
  overrides: Partial<Notification> = {},
  writtenAt = NINE_BERLIN - 60 * MINUTE,
): Promise<Notification> {
  const value: Notification = {
    id: nextId++,
    deploymentId: 7,
    dashboardId: 70,
    scheduleType: 'DAILY',
    minute: 0,
    hour: 9,
    timezone: 'Europe/Berlin',
    isEnabled: true,
    notificationEnabled: true,
    notificationFormat: 'pdf',
    filters: [{ member: 'Orders.status', operator: 'equals', value: 'paid' }],
    timeGrains: null,
    ...overrides,
  } as Notification;
  created.push(value.id);
  await batchWriteAll([
    ...notificationItems(value, writtenAt).map((item) => ({ PutRequest: { Item: item } })),
    ...recipients.map((recipient) => ({ PutRequest: { Item: encodeRecipient(value, recipient) } })),
  ]);
  return value;
}

/** Takes this test's notifications and runs out of the due index, so later tests see only their own. */
afterEach(async () => {
  for (const id of created.splice(0)) {
    const { Items = [] } = await documentClient().send(
      new QueryCommand({
        TableName: tableName(),
        KeyConditionExpression: 'pk = :pk',
        FilterExpression: 'attribute_exists(gsi3pk)',
        ExpressionAttributeValues: { ':pk': keys.notification(7, id).pk },
      }),
    );
    for (const item of Items) {
      await documentClient().send(
        new UpdateCommand({
          TableName: tableName(),
          Key: { pk: item.pk, sk: item.sk },
          UpdateExpression: 'REMOVE gsi3pk, gsi3sk',
        }),
      );
    }
  }
});

async function outbox(): Promise<{ dir: string; sink: JobSink; jobs: () => Promise<DeliveryJob[]> }> {
  const dir = await mkdtemp(join(tmpdir(), 'outbox-'));
  return {
    dir,
    sink: outboxSink(dir),
    async jobs() {
      const files = (await readdir(dir)).filter((file) => file.endsWith('.json'));
      return Promise.all(files.map(async (file) => JSON.parse(await readFile(join(dir, file), 'utf8'))));
    },
  };
}

const pass = (sink: JobSink, now: number, options: Partial<DispatchOptions> = {}) =>
  dispatchPass(dispatchStore, sink, {
    randomHex,
    now,
    misfireGraceMinutes: 60,
    ...options,
    planner: schedulePlanner,
  });

const runsOf = async (n: Notification) =>
  (await runListing.runsPage(n, pageWindow({ first: 200 }, toRunDto))).items;
const deliveriesOf = async (n: Notification, runId: string) =>
  (await deliveryListing.deliveriesPage({ ...n, runId }, pageWindow({ first: 200 }, toDeliveryDto))).items;

describe('a dispatch pass', () => {
  it('fires a due notification once at its instant and moves it to the next one', async () => {
    const n = await notification([user(1), user(2)]);
    const { sink, jobs } = await outbox();

    const early = await pass(sink, NINE_BERLIN - MINUTE);
    expect(early.runs.filter((run) => run.notificationId === n.id)).toEqual([]);

    await pass(sink, NINE_BERLIN + 20_000);
    await pass(sink, NINE_BERLIN + 40_000);
    const runs = await runsOf(n);
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({
      trigger: 'schedule',
      scheduledFor: '2026-11-23T08:00:00.000Z',
      status: 'dispatched',
      skipReason: null,
      recipients: { queued: 2, skipped: 0, delivered: 0, failed: 0 },
    });
    const written = (await jobs()).filter((job) => job.notificationId === n.id);
    expect(written.map((job) => job.recipient)).toEqual(
      expect.arrayContaining([
        { type: 'USER', userId: 1, email: 'ada@example.com', username: 'ada' },
        { type: 'USER', userId: 2, email: 'bob@example.com', username: 'bob' },
      ]),
    );
    expect(written[0]).toMatchObject({
      runId: runs[0]?.runId,
      deploymentId: 7,
      scheduledFor: '2026-11-23T08:00:00.000Z',
      dashboard: { id: 70, publicId: 'sales' },
      notificationFormat: 'pdf',
      filters: [{ member: 'Orders.status', operator: 'equals', value: 'paid' }],
      timeGrains: null,
    });
    const stored = await dispatchStore.findNotification(n);
    expect(stored?.dueKey).toMatch(/^2026-11-24T08:00:00\.000Z#/);

    await pass(sink, NINE_BERLIN + DAY + 5_000);
    expect((await runsOf(n)).map((run) => run.scheduledFor)).toEqual([
      '2026-11-24T08:00:00.000Z',
      '2026-11-23T08:00:00.000Z',
    ]);
  });

  it('reads the console users once a pass, however many of its notifications go to them, and again after a failed read', async () => {
    const notifications = [
      await notification([user(1), user(2)]),
      await notification([user(2), user(1)]),
      await notification([user(1), user(2)]),
    ];
    const { sink, jobs } = await outbox();
    const faults = injectDynamoDbFaults(documentClient());
    try {
      // The first read of the users fails: its notification is left for the next pass, the next one reads them again.
      faults.add({ operations: ['BatchGetItem'], when: (call) => call === 1, fault: crash() });
      const summary = await pass(sink, NINE_BERLIN + 1_000, { concurrency: 1 });
      expect(summary).toMatchObject({ fired: 2, failed: 1 });
      // The users twice (the failed read and the one after it), and each fired page's suppressions once.
      expect(faults.calls('BatchGetItem')).toBe(2 + 2);
    } finally {
      faults.detach();
    }
    await pass(sink, NINE_BERLIN + 30_000);
    const written = await jobs();
    for (const n of notifications) {
      expect((await runsOf(n)).map((run) => run.status)).toEqual(['dispatched']);
      expect(written.filter((job) => job.notificationId === n.id)).toHaveLength(2);
    }
  });

  it('records who was skipped and why, and hands embed users their stored properties', async () => {
    const n = await notification([
      user(1),
      user(3),
      user(99),
      embed('acme', 'Wile@Acme.example', 501),
      embed('globex', 'hank', 502),
    ]);
    const { sink, jobs } = await outbox();
    await pass(sink, NINE_BERLIN + 1_000);
    const [run] = await runsOf(n);
    expect(run?.recipients).toEqual({ queued: 2, skipped: 3, delivered: 0, failed: 0 });
    const deliveries = await deliveriesOf(n, run?.runId as string);
    const byReason = deliveries.map((d) => [d.recipient.type, d.status, d.reason, d.jobId === null]);
    expect(byReason).toEqual(
      expect.arrayContaining([
        ['USER', 'queued', null, false],
        ['USER', 'skipped', 'user_deactivated', true],
        ['USER', 'skipped', 'user_deactivated', true],
        ['EMBED_USER', 'queued', null, false],
        ['EMBED_USER', 'skipped', 'not_shared_with_tenant', true],
      ]),
    );
    const embedJob = (await jobs()).find((job) => job.recipient.type === 'EMBED_USER');
    expect(embedJob?.recipient).toEqual({
      type: 'EMBED_USER',
      embedTenantName: 'acme',
      externalId: 'Wile@Acme.example',
      embedUserId: 501,
      email: 'wile@acme.example@example.com',
      securityContext: { region: 'EU' },
      groups: ['sales'],
    });
    const queuedIds = deliveries.flatMap((d) => (d.jobId ? [d.jobId] : []));
    expect((await jobs()).map((job) => job.jobId).sort()).toEqual(queuedIds.sort());
  });

  it('delivers to every embed user when the dashboard is shared with all of them', async () => {
    const n = await notification([embed('globex', 'hank', 502)], { dashboardId: 72 });
    const { sink } = await outbox();
    await pass(sink, NINE_BERLIN + 1_000);
    expect((await runsOf(n))[0]?.recipients).toEqual({ queued: 1, skipped: 0, delivered: 0, failed: 0 });
  });

  it('skips a run whose delivery is disabled or whose dashboard is unavailable, queueing nothing', async () => {
    const disabled = await notification([user(1)], { notificationEnabled: false });
    const draft = await notification([user(1)], { dashboardId: 71 });
    const gone = await notification([user(1)], { dashboardId: 79 });
    const { sink, jobs } = await outbox();
    await pass(sink, NINE_BERLIN + 1_000);
    expect((await runsOf(disabled))[0]).toMatchObject({ status: 'skipped', skipReason: 'delivery_disabled' });
    expect((await runsOf(draft))[0]).toMatchObject({
      status: 'skipped',
      skipReason: 'dashboard_unavailable',
    });
    expect((await runsOf(gone))[0]).toMatchObject({ status: 'skipped', skipReason: 'dashboard_unavailable' });
    expect(await jobs()).toEqual([]);
  });

  it('never fires a disabled notification', async () => {
    const n = await notification([user(1)], { isEnabled: false });
    const { sink } = await outbox();
    await pass(sink, NINE_BERLIN + 1_000);
    expect(await runsOf(n)).toEqual([]);
  });

  it('fires missed instants once, for the latest, within the grace; older ones not at all', async () => {
    const n = await notification([user(1)], {}, NINE_BERLIN - 3 * DAY);
    const { sink } = await outbox();
    await pass(sink, NINE_BERLIN + 59 * MINUTE);
    expect((await runsOf(n)).map((run) => run.scheduledFor)).toEqual(['2026-11-23T08:00:00.000Z']);

    const late = await notification([user(1)], {}, NINE_BERLIN - 3 * DAY);
    const summary = await pass(sink, NINE_BERLIN + 61 * MINUTE);
    expect(await runsOf(late)).toEqual([]);
    expect(summary.missed).toBeGreaterThanOrEqual(1);
    expect((await dispatchStore.findNotification(late))?.dueKey).toMatch(/^2026-11-24T08:00:00\.000Z#/);
  });

  it('fires no instant earlier than its index entry, and nothing for a disabled notification left in the index', async () => {
    // Entries a schedule change left behind: one due at 08:30Z (the schedule's instant was 08:00Z), and
    // one of a notification disabled since.
    const moved = await notification([user(1)]);
    const disabled = await notification([user(1)], { isEnabled: false });
    for (const [n, at] of [
      [moved, NINE_BERLIN + 30 * MINUTE],
      [disabled, NINE_BERLIN],
    ] as const) {
      const due = dueIndexKeys.notification(7, n.id, at);
      await documentClient().send(
        new UpdateCommand({
          TableName: tableName(),
          Key: keys.scheduleEntry(7, n.id),
          UpdateExpression: 'SET gsi3pk = :pk, gsi3sk = :sk, upcoming = :upcoming',
          ExpressionAttributeValues: { ':pk': due.gsi3pk, ':sk': due.gsi3sk, ':upcoming': [at] },
        }),
      );
    }
    const { sink } = await outbox();
    await pass(sink, NINE_BERLIN + 30 * MINUTE + 1_000);
    expect(await runsOf(moved)).toEqual([]);
    expect(await runsOf(disabled)).toEqual([]);
    expect((await dispatchStore.findNotification(moved))?.dueKey).toMatch(/^2026-11-24T08:00:00\.000Z#/);
    expect((await dispatchStore.findNotification(disabled))?.dueKey).toBeUndefined();
  });

  it('follows a changed schedule from its next instant; other edits leave the entry; disabling takes it out', async () => {
    const n = await notification([user(1)]);
    const update = (input: Record<string, unknown>) =>
      updateNotification(
        notificationUpdate,
        n,
        input,
        { customCronMinIntervalMinutes: 15 },
        { now: Date.now(), pause: async () => {} },
        testAudit,
      );
    const entryAt = async () => (await dispatchStore.findNotification(n))?.dueKey;
    const first = await entryAt();
    await update({ notificationFormat: 'png' });
    expect(await entryAt()).toBe(first);
    const { sink } = await outbox();
    const dto = await update({ hour: 10 });
    expect(new Date(dto.nextRunAt as string).getUTCHours()).toBe(9);
    // After the next pass (as of the real clock) the entry is the new schedule's next instant, as the
    // answer said (10:00 in Berlin), and nothing fired.
    await pass(sink, Date.now() + 1_000);
    expect((await entryAt())?.startsWith(`${(dto.nextRunAt as string).replace('Z', '.000Z')}#`)).toBe(true);
    expect(await runsOf(n)).toEqual([]);
    await update({ isEnabled: false });
    await pass(sink, Date.now() + 1_000);
    expect(await entryAt()).toBeUndefined();
    expect(await runsOf(n)).toEqual([]);
  });

  it('stores the state of a schedule change whose writer stopped between its two writes, and fires nothing before it', async () => {
    const n = await notification([user(1)]);
    const before = await dispatchStore.findNotification(n);
    // The update's first write alone, as if the function had stopped before storing the new state.
    const read = await notificationUpdate.findForUpdate(n);
    const written = await notificationUpdate.update(
      n,
      { set: { hour: 11 }, schedule: true },
      read?.version ?? -1,
      testAuditEvent(n),
    );
    expect(written).toMatchObject({ scheduleVersion: (read?.version ?? 0) + 1 });
    expect((await dispatchStore.findNotification(n))?.dueKey).toBe(before?.dueKey);
    // The entry, still the old schedule's, is not fired while the notification says otherwise.
    const { sink } = await outbox();
    await pass(sink, NINE_BERLIN + 1_000);
    expect(await runsOf(n)).toEqual([]);
    // The pass after the change finds its mark, stores the new schedule's state and takes the mark out.
    await pass(sink, Date.now() + 1_000);
    const entry = await dispatchStore.findNotification(n);
    expect(entry?.dueKey).toMatch(/T10:00:00\.000Z#/);
    const item = await documentClient().send(
      new QueryCommand({
        TableName: tableName(),
        KeyConditionExpression: 'pk = :pk AND sk = :sk',
        ExpressionAttributeValues: {
          ':pk': keys.notification(7, n.id).pk,
          ':sk': keys.notification(7, n.id).sk,
        },
      }),
    );
    expect(item.Items?.[0]?.gsi3sk).toBeUndefined();
    expect(await runsOf(n)).toEqual([]);
  });

  it('sends now on the same path, whether or not the schedule or delivery is enabled', async () => {
    const n = await notification([user(1), user(3)], { isEnabled: false, notificationEnabled: false });
    const { sink, jobs } = await outbox();
    const run = await sendNow(sendNowStore, sink, n, {
      randomHex,
      now: NINE_BERLIN + 7 * MINUTE,
      minIntervalMs: 0,
      audit: testAudit,
    });
    expect(run).toMatchObject({
      trigger: 'manual',
      status: 'dispatched',
      skipReason: null,
      scheduledFor: '2026-11-23T08:07:00.000Z',
      recipients: { queued: 1, skipped: 1, delivered: 0, failed: 0 },
    });
    expect(await jobs()).toHaveLength(1);
    const again = await sendNow(sendNowStore, sink, n, {
      randomHex,
      now: NINE_BERLIN + 7 * MINUTE,
      minIntervalMs: 0,
      audit: testAudit,
    });
    expect(again.runId).not.toBe(run.runId);

    const draft = await notification([user(1)], { dashboardId: 71 });
    expect(
      await sendNow(sendNowStore, sink, draft, {
        randomHex,
        now: NINE_BERLIN,
        minIntervalMs: 0,
        audit: testAudit,
      }),
    ).toMatchObject({
      status: 'skipped',
      skipReason: 'dashboard_unavailable',
      recipients: { queued: 0, skipped: 0, delivered: 0, failed: 0 },
    });
  });
});

describe('the send-now limit, on the request clock', () => {
  const SECOND = 1_000;
  const limited = (n: Notification, sink: JobSink, now: number) =>
    sendNow(sendNowStore, sink, n, { randomHex, now, minIntervalMs: 10 * SECOND, audit: testAudit });
  const refusal = (promise: Promise<unknown>) =>
    promise.then(
      () => undefined,
      (error: unknown) => error as TooManyRequestsError,
    );

  it('refuses a send-now within the interval, saying when to retry; accepts it after', async () => {
    const n = await notification([user(1)]);
    const { sink } = await outbox();
    expect((await limited(n, sink, NINE_BERLIN)).status).toBe('dispatched');
    const tooSoon = await refusal(limited(n, sink, NINE_BERLIN + 3_500));
    expect(tooSoon).toBeInstanceOf(TooManyRequestsError);
    expect(tooSoon?.retryAfterSeconds).toBe(7);
    expect((await limited(n, sink, NINE_BERLIN + 10 * SECOND)).status).toBe('dispatched');
    expect(await runsOf(n)).toHaveLength(2);
  });

  it('refuses a send-now while the previous one is dispatching, however long ago it was made', async () => {
    const recipients = Array.from({ length: 7 }, (_, i) => embed('acme', `many-${i}`, 700 + i));
    const n = await notification(recipients);
    const { sink, jobs } = await outbox();
    const first = await sendNow(sendNowStore, sink, n, {
      randomHex,
      now: NINE_BERLIN,
      minIntervalMs: 10 * SECOND,
      audit: testAudit,
      pageSize: 3,
    });
    expect(first).toMatchObject({ status: 'dispatching', recipients: { queued: 3 } });
    const whileDispatching = await refusal(limited(n, sink, NINE_BERLIN + 60 * SECOND));
    expect(whileDispatching).toBeInstanceOf(TooManyRequestsError);
    expect(whileDispatching?.message).toMatch(/dispatching/);

    await pass(sink, NINE_BERLIN + 61 * SECOND, { pageSize: 3 });
    const [run] = (await runsOf(n)).filter(({ runId }) => runId === first.runId);
    expect(run).toMatchObject({ status: 'dispatched', recipients: { queued: 7 } });
    expect((await jobs()).filter(({ runId }) => runId === first.runId)).toHaveLength(7);
    expect((await limited(n, sink, NINE_BERLIN + 62 * SECOND)).status).toBe('dispatched');
  });

  it('answers 404 and makes no run for a notification deleted before its run is written', async () => {
    const n = await notification([user(1)]);
    const { sink } = await outbox();
    const faults = injectDynamoDbFaults(documentClient());
    faults.add({
      operations: ['TransactWriteItems'],
      fault: {
        kind: 'hook',
        run: () =>
          documentClient()
            .send(new DeleteCommand({ TableName: tableName(), Key: keys.notification(7, n.id) }))
            .then(() => {}),
      },
    });
    try {
      await expect(limited(n, sink, NINE_BERLIN)).rejects.toBeInstanceOf(NotFoundError);
    } finally {
      faults.detach();
    }
    expect(await runsOf(n)).toEqual([]);
  });
});

describe('a run whose pass died', () => {
  it('is listed dispatching until a later pass finishes it', async () => {
    const n = await notification([user(1), user(2), user(3)]);
    const { sink } = await outbox();
    const faults = injectDynamoDbFaults(documentClient());
    // After the claim (the run and the entry's move, one transaction), the pass dies as it records its
    // first page.
    faults.add({ operations: ['UpdateItem'], when: (call) => call === 1, fault: crash() });
    try {
      expect((await pass(sink, NINE_BERLIN + 1_000, { pageSize: 2 })).failed).toBe(1);
    } finally {
      faults.detach();
    }
    const listed = async () => (await listRuns(runListing, n, { first: 10 })).items;
    expect(await listed()).toMatchObject([{ status: 'dispatching', recipients: { queued: 0 } }]);
    await pass(sink, NINE_BERLIN + 3 * MINUTE, { pageSize: 2 });
    expect(await listed()).toMatchObject([{ status: 'dispatched', recipients: { queued: 2, skipped: 1 } }]);
  });
});

describe('exactly once', () => {
  it('fires an instant once when two dispatchers race for it', async () => {
    const n = await notification([user(1), user(2)]);
    const { sink, jobs } = await outbox();
    const faults = injectDynamoDbFaults(documentClient());
    const lineUp = barrier(2);
    faults.add({
      operations: ['TransactWriteItems'],
      when: (call) => call <= 2,
      fault: { kind: 'hook', run: lineUp },
    });
    try {
      const [a, b] = await Promise.all([pass(sink, NINE_BERLIN + 1_000), pass(sink, NINE_BERLIN + 2_000)]);
      expect(a.fired + b.fired).toBe(1);
    } finally {
      faults.detach();
    }
    expect(await runsOf(n)).toHaveLength(1);
    expect(await jobs()).toHaveLength(2);
  });

  /**
   * Each write of a pass in turn fails before it reaches the table, or takes effect with its answer
   * lost; the delivery sink fails in turn too. A later pass (as a retry or the next minute's) must
   * then leave exactly one run with every delivery, and one job per queued delivery.
   */
  async function interruptEachStep(
    recipients: Recipient[],
    pageSize: number | undefined,
    counts: { queued: number; skipped: number },
  ): Promise<number> {
    let interrupted = 0;
    for (const mode of ['before', 'lost', 'sink'] as const) {
      for (let k = 1; ; k++) {
        const n = await notification(recipients);
        const { sink, jobs } = await outbox();
        let sinkCalls = 0;
        const failingSink: JobSink = {
          async send(batch) {
            sinkCalls += 1;
            if (mode === 'sink' && sinkCalls === k) throw new Error('Injected crash');
            await sink.send(batch);
          },
        };
        const faults = injectDynamoDbFaults(documentClient());
        let writes = 0;
        if (mode !== 'sink') {
          faults.add({
            operations: WRITE_OPERATIONS,
            when: (call) => {
              writes = call;
              return call === k;
            },
            fault: mode === 'before' ? crash() : { kind: 'lost' },
          });
        }
        let first: Awaited<ReturnType<typeof pass>>;
        try {
          first = await pass(failingSink, NINE_BERLIN + 1_000, { pageSize });
        } finally {
          faults.detach();
        }
        const hit = mode === 'sink' ? sinkCalls >= k : writes >= k;
        if (!hit) {
          expect(first.failed).toBe(0);
          break;
        }
        interrupted += 1;
        // The retry: after the interrupted run's lease has ended.
        await pass(sink, NINE_BERLIN + 3 * MINUTE, { pageSize });
        const runs = await runsOf(n);
        expect(runs, `${mode} #${k}`).toHaveLength(1);
        expect(runs[0], `${mode} #${k}`).toMatchObject({
          status: 'dispatched',
          recipients: counts,
        });
        const deliveries = await deliveriesOf(n, runs[0]?.runId as string);
        expect(deliveries, `${mode} #${k}`).toHaveLength(recipients.length);
        const written = (await jobs()).filter((job) => job.notificationId === n.id);
        expect(written.map((job) => job.jobId).sort(), `${mode} #${k}`).toEqual(
          deliveries.flatMap((d) => (d.jobId ? [d.jobId] : [])).sort(),
        );
        expect((await dispatchStore.findNotification(n))?.dueKey, `${mode} #${k}`).toMatch(
          /^2026-11-24T08:00/,
        );
      }
    }
    return interrupted;
  }

  it('fires an instant once and loses nothing, whichever step a crash interrupts: a run of many pages', async () => {
    const recipients = [user(1), user(2), user(3), embed('acme', 'a1', 601), embed('acme', 'a2', 602)];
    // Seven writes (the claim with the entry's move, three delivery pages, two progress records,
    // finish) each interrupted two ways, and the two sink calls (the third page holds only a skipped
    // recipient).
    expect(await interruptEachStep(recipients, 2, { queued: 4, skipped: 1 })).toBe(16);
    // Sixteen crashes, each followed by two passes: more than the default 30 s on a loaded machine.
  }, 120_000);

  it('fires an instant once and loses nothing, whichever step a crash interrupts: a run that fits the claim', async () => {
    const recipients = [user(1), user(3), embed('acme', 'a1', 601)];
    // Two writes (the claim with the entry's move and the deliveries, finish) each interrupted two
    // ways, and the one sink call.
    expect(await interruptEachStep(recipients, undefined, { queued: 2, skipped: 1 })).toBe(5);
  });

  it('gives the same delivery the same job id on every retry', async () => {
    const n = await notification([user(1)]);
    const first = await outbox();
    await pass(first.sink, NINE_BERLIN + 1_000);
    const [run] = await runsOf(n);
    const [delivery] = await deliveriesOf(n, run?.runId as string);
    const [job] = await first.jobs();
    expect(job?.jobId).toBe(delivery?.jobId);
    // The job id names its delivery: deployment, notification, run and the delivery's own id.
    expect(job?.jobId).toMatch(/^7\.\d+\.\d{8}T\d{9}Z-s\.[0-9a-f]{32}$/);
  });
});
