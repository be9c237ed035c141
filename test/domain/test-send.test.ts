import { describe, expect, it } from 'vitest';
import type { ConsoleUser, Dashboard } from '#lib/domain/entities';
import type { Delivery, DeliveryJob, Run } from '#lib/domain/runs/runs';
import type { ManualRunClaim } from '#lib/domain/runs/send-now';
import { type TestSendStore, testSend } from '#lib/domain/runs/test-send';
import { NotFoundError, TooManyRequestsError, ValidationError } from '#lib/errors';
import { dailyNotification, salesDashboard, testAudit } from '#test/support/domain-fixtures';

/** A test send against one notification held in memory; the sink records the jobs that leave. */

const now = Date.UTC(2026, 10, 24, 10);
const ref = { deploymentId: 7, id: 700 };
const notification = dailyNotification({ isEnabled: false, notificationEnabled: false });
const dashboard = salesDashboard();
const ada: ConsoleUser = { id: 1, email: 'ada@example.com', username: 'ada', role: 'admin', active: true };
const bob: ConsoleUser = { id: 2, email: 'bob@example.com', username: 'bob', role: 'member', active: true };
const carol: ConsoleUser = {
  id: 3,
  email: 'carol@example.com',
  username: 'carol',
  role: 'admin',
  active: false,
};

function world(
  options: { notification?: boolean; dashboard?: Dashboard; claim?: ManualRunClaim; live?: boolean } = {},
) {
  const claims: { run: Run; previousNoLaterThan: number }[] = [];
  const userReads: { userIds: readonly number[]; emails: readonly string[] }[] = [];
  const put: Delivery[][] = [];
  const sent: DeliveryJob[][] = [];
  const store: TestSendStore = {
    findNotification: async () => (options.notification === false ? undefined : { notification }),
    findDashboard: async () => ('dashboard' in options ? options.dashboard : dashboard),
    suppressedAmong: async () => new Set(),
    async consoleUsers(userIds, emails) {
      userReads.push({ userIds, emails });
      return {
        tenants: [],
        users: [ada, bob, carol].filter((user) => userIds.includes(user.id) || emails.includes(user.email)),
        emailLinks: [ada, bob, carol]
          .filter((user) => emails.includes(user.email))
          .map((user) => ({ email: user.email, userId: user.id })),
        embedUsers: [],
      };
    },
    userRowKey: (_ref, userId) => `R#U#${userId}`,
    async claimRun(run, deliveries, previousNoLaterThan) {
      claims.push({ run, previousNoLaterThan });
      const claimed = options.claim ?? { created: true };
      // The deliveries are written in the claim's write, only when it makes the run.
      if (claimed.created && deliveries.length > 0) put.push([...deliveries]);
      return claimed;
    },
    isLive: async () => options.live ?? true,
    findRun: async () => undefined,
    testRunDeliveries: async () => put.flat(),
    claimKey: async (deploymentId, claim) => ({ held: { deploymentId, claim, owner: 'o' } }),
    completeKey: async () => {},
    releaseKey: async () => {},
  };
  const sink = { send: async (jobs: readonly DeliveryJob[]) => void sent.push([...jobs]) };
  return { store, sink, claims, put, sent, userReads };
}

const errorOf = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (caught: unknown) => caught as Error,
  );
const options = {
  now,
  minIntervalMs: 60_000,
  randomHex: (bytes: number) => 'cd'.repeat(bytes),
  audit: testAudit,
};

describe('testSend', () => {
  it('sends to the named console users only, subscribed or not, whatever the schedule and delivery settings', async () => {
    const { store, sink, claims, put, sent } = world();
    const run = await testSend(store, sink, ref, [{ email: 'ADA@example.com' }, { userId: 2 }], options);
    expect(run).toMatchObject({
      trigger: 'test',
      status: 'dispatched',
      skipReason: null,
      scheduledFor: new Date(now).toISOString(),
      createdAt: new Date(now).toISOString(),
      recipients: { queued: 2, skipped: 0, delivered: 0, failed: 0 },
      completedAt: null,
    });
    expect(run.runId).toBe('20261124T100000000Z-tcdcdcdcd');
    expect(claims).toEqual([{ run, previousNoLaterThan: now - 60_000 }]);
    expect(put.flat().map((d) => [d.recipientKey, d.status])).toEqual([
      ['R#U#1', 'queued'],
      ['R#U#2', 'queued'],
    ]);
    expect(sent.flat().map((job) => job.recipient)).toEqual([
      { type: 'USER', userId: 1, email: 'ada@example.com', username: 'ada' },
      { type: 'USER', userId: 2, email: 'bob@example.com', username: 'bob' },
    ]);
  });

  it('reads only the users named, by id and by lower-cased e-mail', async () => {
    const { store, sink, userReads } = world();
    await testSend(store, sink, ref, [{ email: 'ADA@example.com' }, { userId: 2 }], options);
    expect(userReads).toEqual([{ userIds: [2], emails: ['ada@example.com'] }]);
  });

  it('refuses the same user named by id in one item and by e-mail in another', async () => {
    const { store, sink, sent } = world();
    const sending = testSend(store, sink, ref, [{ userId: 1 }, { email: 'ada@example.com' }], options);
    await expect(sending).rejects.toMatchObject({
      problems: [{ path: 'recipients.1', message: 'is the same recipient as recipients[0]' }],
    });
    expect(sent).toEqual([]);
  });

  it('names each item that names no active user', async () => {
    const { store, sink } = world();
    await expect(testSend(store, sink, ref, [{ userId: 1 }, { userId: 3 }], options)).rejects.toMatchObject({
      problems: [{ path: 'recipients.1.userId', message: 'does not name an active console user' }],
    });
  });

  it('refuses a user named twice before looking the notification up', async () => {
    const { store, sink } = world({ notification: false });
    const twice = [{ email: 'ada@example.com' }, { email: 'ADA@example.com' }];
    expect(await errorOf(testSend(store, sink, ref, twice, options))).toBeInstanceOf(ValidationError);
  });

  it('records a skipped run and sends nothing when the dashboard is unavailable', async () => {
    const { store, sink, put, sent, claims } = world({ dashboard: { ...dashboard, published: false } });
    const run = await testSend(store, sink, ref, [{ userId: 1 }], options);
    expect(run).toMatchObject({
      status: 'skipped',
      skipReason: 'dashboard_unavailable',
      recipients: { queued: 0 },
    });
    expect(claims).toHaveLength(1);
    expect(put).toEqual([]);
    expect(sent).toEqual([]);
  });

  it('is refused, writing nothing, too soon after the last send-now or while it dispatches', async () => {
    for (const claim of [
      { created: false, reason: 'too_soon', previousAt: now - 10_000 },
      { created: false, reason: 'dispatching' },
    ] as const) {
      const { store, sink, put, sent } = world({ claim });
      expect(await errorOf(testSend(store, sink, ref, [{ userId: 1 }], options))).toBeInstanceOf(
        TooManyRequestsError,
      );
      expect(put).toEqual([]);
      expect(sent).toEqual([]);
    }
  });

  it('does not know a notification that is gone, before or while it sends', async () => {
    for (const gone of [
      world({ notification: false }),
      world({ claim: { created: false, reason: 'gone' } }),
      world({ live: false }),
    ]) {
      const error = await errorOf(testSend(gone.store, gone.sink, ref, [{ userId: 1 }], options));
      expect(error).toBeInstanceOf(NotFoundError);
      expect(error?.message).toBe('Notification 700 of deployment 7 was not found');
      expect(gone.sent).toEqual([]);
    }
  });

  it('refuses a user named twice, one that does not exist, and a deactivated one', async () => {
    const twice = world();
    expect(
      await errorOf(testSend(twice.store, twice.sink, ref, [{ userId: 1 }, { userId: 1 }], options)),
    ).toBeInstanceOf(ValidationError);
    const unknown = world();
    expect(
      await errorOf(testSend(unknown.store, unknown.sink, ref, [{ userId: 9 }], options)),
    ).toBeInstanceOf(ValidationError);
    expect(unknown.sent).toEqual([]);
    const inactive = world();
    expect(
      await errorOf(testSend(inactive.store, inactive.sink, ref, [{ userId: 3 }], options)),
    ).toBeInstanceOf(ValidationError);
  });
});
