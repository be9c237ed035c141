import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { beforeEach, describe, expect, it } from 'vitest';
import { randomHex } from '#lib/clock';
import type { Clock } from '#lib/domain/clock';
import type { DueSlice } from '#lib/domain/dispatch/dispatch-fanout';
import { dispatchPass } from '#lib/domain/dispatch/dispatch-pass';
import type { DispatchStore } from '#lib/domain/dispatch/dispatch-ports';
import { summaryLine } from '#lib/domain/dispatch/dispatch-summary';
import type { DispatchOptions, PassSummary } from '#lib/domain/dispatch/pass-context';
import { schedulePlanner } from '#lib/domain/schedules/schedule-planning';
import { parseFixture } from '#lib/fixtures/fixture';
import { ensureTable, loadFixture } from '#lib/fixtures/load-fixture';
import { outboxSink } from '#lib/jobs/outbox-sink';
import { encodeRecipient } from '#lib/store/codecs/recipients';
import { dispatchStore } from '#lib/store/dispatch/dispatch';
import { batchWriteAll } from '#lib/store/dynamo/batch';
import { documentClient, tableName } from '#lib/store/dynamo/client';
import { dueShard } from '#lib/store/dynamo/keys';
import { notificationItems } from '#lib/store/notifications/notification-items';
import { consoleUsers, dailyUtc } from '#test/support/fixtures';

/**
 * A worker slower than planned, against the local engine, with a clock the test moves: every fire
 * takes a second of it. The worker measures that pace, hands on the shards it would not fire within
 * the minute, and whatever it has not started when its time runs out; a continuation started on the
 * slices it hands on fires exactly those, within the same minute, and the summaries count it all.
 */

const MINUTE = 60_000;
/** 09:00 UTC, a minute in the future of nothing: every notification's instant. */
const NINE = Date.parse('2026-11-23T09:00:00Z');
/** The coordinator's second in the minute; the window ends at 09:00:59. */
const STARTED = NINE + 2_000;
const FIRE_BY = NINE + 59_000;
const FIRE_MS = 1_000;
let nextId = 40_000;

beforeEach(async () => {
  await ensureTable();
  await loadFixture(
    parseFixture({
      users: consoleUsers,
      deployments: [{ id: 7, name: 'Production' }],
      dashboards: [{ id: 70, deploymentId: 7, publicId: 'sales', title: 'Sales', published: true }],
    }),
  );
});

/** `count` notifications due at 09:00, with one recipient each, in as many shards as they hash to. */
async function due(count: number): Promise<number[]> {
  const ids = Array.from({ length: count }, () => nextId++);
  await batchWriteAll(
    ids.flatMap((id) => {
      const notification = dailyUtc(id, 9, 0);
      return [
        ...notificationItems(notification, NINE - 10 * MINUTE),
        encodeRecipient(notification, { type: 'USER', userId: 1 }),
      ].map((item) => ({ PutRequest: { Item: item } }));
    }),
  );
  return ids;
}

/** A clock only the test moves, and the store a slow worker sees: each fire's first read takes FIRE_MS. */
function slowWorld(start: number) {
  let now = start;
  const clock: Clock = {
    now: () => now,
    sleep: async (ms) => {
      now += ms;
    },
  };
  const store: DispatchStore = {
    ...dispatchStore,
    async dueNotification(ref, limit) {
      now += FIRE_MS;
      return dispatchStore.dueNotification(ref, limit);
    },
  };
  return { clock, store, deadlineIn: (ms: number) => ({ remainingMs: () => start + ms - now }) };
}

async function pass(
  store: DispatchStore,
  options: Pick<DispatchOptions, 'now' | 'clock' | 'deadline' | 'fireBy' | 'slices'>,
  handedOn?: DueSlice[][],
): Promise<PassSummary> {
  return dispatchPass(store, outboxSink(await mkdtemp(join(tmpdir(), 'continuation-'))), {
    ...options,
    randomHex,
    planner: schedulePlanner,
    misfireGraceMinutes: 60,
    concurrency: 1,
    continuation: handedOn && {
      start: async (slices) => {
        handedOn.push([...slices]);
      },
    },
  });
}

/** The runs made for these notifications: their notification and when they were made. */
async function runsOf(ids: readonly number[]) {
  const { Items = [] } = await documentClient().send(
    new ScanCommand({
      TableName: tableName(),
      FilterExpression: 'begins_with(sk, :run)',
      ExpressionAttributeValues: { ':run': 'RUN#' },
    }),
  );
  return Items.filter((run) => ids.includes(run.notificationId)).map((run) => ({
    id: run.notificationId as number,
    scheduledFor: run.scheduledFor as string,
    createdAt: Date.parse(run.createdAt as string),
  }));
}

describe('a dispatcher worker slower than planned', () => {
  it('hands on, at the pace it measured, the shards it would not fire within the minute; the continuation fires them in it', async () => {
    const ids = await due(90);
    const slow = slowWorld(STARTED);
    const handedOn: DueSlice[][] = [];
    const summary = await pass(
      slow.store,
      { now: STARTED, clock: slow.clock, deadline: slow.deadlineIn(60_000), fireBy: FIRE_BY },
      handedOn,
    );
    // One a second from 09:00:02: about 56 fit before 09:00:59; the rest went on after its first second.
    expect(summary.due).toBe(90);
    expect(summary.handedOn).toBeGreaterThan(0);
    expect(summary.fired + summary.handedOn).toBe(90);
    expect(summary.left).toBe(0);
    expect(slow.clock.now()).toBeLessThanOrEqual(FIRE_BY);
    expect(summaryLine(STARTED, summary)).toContain(`${summary.handedOn} handed on, 0 left`);
    // Handed on whole shards, none of them one the worker went on firing.
    const handedShards = handedOn.flat().map((slice) => slice.shard);
    expect(new Set(handedShards).size).toBe(handedShards.length);

    // Each continuation, started at once and as slow, reads exactly its slices and fires them by 09:00:59.
    let fired = summary.fired;
    for (const slices of handedOn) {
      const continuation = slowWorld(STARTED + 3_000);
      const own = await pass(continuation.store, {
        now: STARTED + 3_000,
        clock: continuation.clock,
        deadline: continuation.deadlineIn(60_000),
        fireBy: FIRE_BY,
        slices,
      });
      expect(own).toMatchObject({ due: own.fired, handedOn: 0, left: 0, failed: 0 });
      expect(continuation.clock.now()).toBeLessThanOrEqual(FIRE_BY);
      fired += own.fired;
    }
    expect(fired).toBe(90);
    const runs = await runsOf(ids);
    expect(runs.map((run) => run.id).sort()).toEqual(ids);
    expect(new Set(runs.map((run) => run.scheduledFor))).toEqual(new Set([new Date(NINE).toISOString()]));
    for (const run of runs) expect(run.createdAt).toBeLessThan(NINE + MINUTE);
  }, 60_000);

  it('hands on what it has not started when its time runs out, and counts as left what it cannot hand on', async () => {
    const ids = await due(12);
    const shards = new Set(ids.map((id) => dueShard(7, id)));
    // 8 s of invocation, 5 of them kept back: three fires, then the rest goes on.
    const short = slowWorld(STARTED);
    const handedOn: DueSlice[][] = [];
    const summary = await pass(
      short.store,
      { now: STARTED, clock: short.clock, deadline: short.deadlineIn(8_000) },
      handedOn,
    );
    expect(summary).toMatchObject({ due: 12, fired: 3, handedOn: 9, left: 0 });
    expect(handedOn).toHaveLength(1);
    // Of each shard, what the worker had not started: after its last started entry, through its last read.
    for (const slice of handedOn[0] ?? []) {
      expect(shards.has(slice.shard)).toBe(true);
      expect(slice.through).toMatch(/#NOTIFICATION#7#/);
    }
    const continuation = await pass(dispatchStore, { now: STARTED + 6_000, slices: handedOn[0] });
    expect(continuation).toMatchObject({ due: 9, fired: 9, handedOn: 0, left: 0 });
    expect((await runsOf(ids)).map((run) => run.id).sort()).toEqual(ids);

    // Without a way to start a continuation (a pass run by hand), the rest is counted as left.
    const more = await due(6);
    const alone = slowWorld(STARTED);
    const left = await pass(alone.store, {
      now: STARTED,
      clock: alone.clock,
      deadline: alone.deadlineIn(8_000),
    });
    expect(left).toMatchObject({ due: 6, fired: 3, handedOn: 0, left: 3 });
    expect(summaryLine(STARTED, left)).toContain('0 handed on, 3 left');
    expect(await runsOf(more)).toHaveLength(3);
  }, 60_000);
});
