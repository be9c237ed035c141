import { describe, expect, it } from 'vitest';
import { emptyPage, type StoredPage } from '#lib/domain/paging';
import { type DeliveryListing, listDeliveries, listRuns, type RunListing } from '#lib/domain/runs/run-lists';
import { type Delivery, noRecipients, type Run, scheduledRunId } from '#lib/domain/runs/runs';
import { NotFoundError } from '#lib/errors';

const runId = scheduledRunId(Date.UTC(2026, 10, 24, 9));
const ref = { deploymentId: 7, id: 700 };
const run: Run = {
  runId,
  deploymentId: 7,
  notificationId: 700,
  trigger: 'schedule',
  scheduledFor: '2026-11-24T09:00:00.000Z',
  createdAt: '2026-11-24T09:00:01.000Z',
  status: 'dispatched',
  skipReason: null,
  recipients: noRecipients(),
  completedAt: null,
};
const delivery: Delivery = {
  recipientKey: 'R#U#1',
  deliveryId: 'a'.repeat(32),
  recipient: { type: 'USER', userId: 1, email: 'ada@example.com', username: 'ada' },
  status: 'queued',
  reason: null,
  jobId: `7.700.${runId}.${'a'.repeat(32)}`,
  attempts: 1,
  error: null,
  updatedAt: run.createdAt,
};

/** A repository of one notification and its run, recording the order of its reads. */
function repository(
  options: { notification?: boolean; run?: boolean; deliveries?: StoredPage<Delivery> } = {},
) {
  const reads: string[] = [];
  const repo: RunListing & DeliveryListing = {
    async notificationExists() {
      reads.push('notification');
      return options.notification ?? true;
    },
    async runExists() {
      reads.push('run');
      return options.run ?? true;
    },
    async runsPage(_ref, window) {
      reads.push(`runs first=${window.first} after=${window.after}`);
      return { items: [run], cursors: ['c1'], hasNextPage: true };
    },
    async deliveriesPage(_ref, window) {
      reads.push(`deliveries first=${window.first}`);
      return options.deliveries ?? { items: [delivery], cursors: ['d1'], hasNextPage: false };
    },
  };
  return { repo, reads };
}

const errorOf = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (caught: unknown) => caught as Error,
  );

describe('listRuns', () => {
  it('reads the page before the notification, and answers it', async () => {
    const { repo, reads } = repository();
    expect(await listRuns(repo, ref, { first: 10, after: 'c0' })).toEqual({
      items: [run],
      pageInfo: { startCursor: 'c1', endCursor: 'c1', hasNextPage: true, hasPreviousPage: true },
    });
    expect(reads).toEqual(['runs first=10 after=c0', 'notification']);
  });

  it('does not know the runs of a notification that does not exist', async () => {
    const error = await errorOf(listRuns(repository({ notification: false }).repo, ref, { first: 10 }));
    expect(error).toBeInstanceOf(NotFoundError);
    expect(error?.message).toBe('Notification 700 of deployment 7 was not found');
  });
});

describe('listDeliveries', () => {
  it('answers a page of deliveries without their keys', async () => {
    const { repo, reads } = repository();
    const page = await listDeliveries(repo, { ...ref, runId }, { first: 5 });
    expect(page.items).toEqual([
      {
        recipient: delivery.recipient,
        status: 'queued',
        reason: null,
        jobId: delivery.jobId,
        attempts: 1,
        error: null,
        updatedAt: delivery.updatedAt,
      },
    ]);
    expect(reads).toEqual(['deliveries first=5', 'notification']);
  });

  it('does not know a run id of another form, without reading anything', async () => {
    const { repo, reads } = repository();
    const error = await errorOf(listDeliveries(repo, { ...ref, runId: 'nope' }, { first: 5 }));
    expect(error?.message).toBe('Run nope of notification 700 was not found');
    expect(reads).toEqual([]);
  });

  it('looks the run up only when its page is empty, and does not know a run that is not there', async () => {
    const empty = repository({ run: false, deliveries: emptyPage() });
    const error = await errorOf(listDeliveries(empty.repo, { ...ref, runId }, { first: 5 }));
    expect(error).toBeInstanceOf(NotFoundError);
    expect(error?.message).toBe(`Run ${runId} of notification 700 was not found`);
    expect(empty.reads).toEqual(['deliveries first=5', 'notification', 'run']);
    const emptyRun = repository({ deliveries: emptyPage() });
    expect((await listDeliveries(emptyRun.repo, { ...ref, runId }, { first: 5 })).items).toEqual([]);
  });

  it('does not know the deliveries of a notification that does not exist', async () => {
    const error = await errorOf(
      listDeliveries(repository({ notification: false }).repo, { ...ref, runId }, { first: 5 }),
    );
    expect(error?.message).toBe('Notification 700 of deployment 7 was not found');
  });
});
