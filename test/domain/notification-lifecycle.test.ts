import { describe, expect, it } from 'vitest';
import { deleteNotification } from '#lib/domain/deletion/delete-notification';
import type { ScheduledNotification } from '#lib/domain/notifications/notification';
import {
  getNotification,
  type ListNotificationsQuery,
  listNotifications,
  type NotificationFilter,
} from '#lib/domain/notifications/notification-lifecycle';
import type { PageWindow } from '#lib/domain/paging';
import {
  listRecipients,
  type RemovalTarget,
  type RemovedRecipientInput,
  removeRecipients,
} from '#lib/domain/recipients/recipient-lists';
import type { RecipientOutput } from '#lib/domain/recipients/recipients';
import type { WebhookEventType } from '#lib/domain/webhooks/event-types';
import { NotFoundError, ValidationError } from '#lib/errors';
import { dailyNotification, testAudit, testAuditEvent } from '#test/support/domain-fixtures';

/** Reading, listing and deleting notifications and removing recipients, against ports held in memory. */

const now = Date.UTC(2026, 10, 24, 10);
const ref = { deploymentId: 7, id: 700 };
const stored: ScheduledNotification = {
  notification: dailyNotification(),
  schedule: {
    humanReadableSchedule: 'At 09:00',
    upcoming: [Date.UTC(2026, 10, 24, 9), Date.UTC(2026, 10, 25, 9)],
  },
};
const ada: RecipientOutput = { type: 'USER', userId: 1, email: 'ada@example.com', username: 'ada' };

const notFound = new NotFoundError('Notification 700 of deployment 7');

describe('getNotification', () => {
  it('answers the notification with its next instant after now', async () => {
    const found = await getNotification({ find: async () => stored }, ref, now);
    expect(found).toMatchObject({ id: 700, cronExpression: '0 9 * * *', nextRunAt: '2026-11-25T09:00:00Z' });
  });

  it('answers a disabled notification without a next instant', async () => {
    const disabled = { ...stored, notification: dailyNotification({ isEnabled: false }) };
    expect(await getNotification({ find: async () => disabled }, ref, now)).toMatchObject({
      nextRunAt: null,
    });
  });

  it('is not found, naming the notification and its deployment, when there is none', async () => {
    await expect(getNotification({ find: async () => undefined }, ref, now)).rejects.toThrow(notFound);
  });
});

describe('deleteNotification', () => {
  /** Deleted by the test's admin at 0, in a deployment whose endpoints want `types`. */
  const context = (...types: WebhookEventType[]) => ({
    audit: testAudit,
    recorder: { subscribedTypes: async () => new Set(types), newEventId: () => 'evt_1' },
    now: 0,
  });
  const audited = { ...testAuditEvent(ref, 'deleted'), at: new Date(0).toISOString() };

  it('deletes the notification named with its audit event, and no webhook event when no endpoint wants one', async () => {
    const deleted: unknown[][] = [];
    await deleteNotification(
      { delete: async (...args) => deleted.push(args) > 0 },
      ref,
      context('run.completed'),
    );
    expect(deleted).toEqual([[7, 700, audited, undefined, undefined]]);
  });

  it('records notification.deleted with the delete when an endpoint wants it', async () => {
    const deleted: unknown[][] = [];
    await deleteNotification(
      { delete: async (...args) => deleted.push(args) > 0 },
      ref,
      context('notification.deleted'),
    );
    expect(deleted).toEqual([
      [
        7,
        700,
        audited,
        {
          eventId: 'evt_1',
          deploymentId: 7,
          type: 'notification.deleted',
          createdAt: new Date(0).toISOString(),
          data: { deploymentId: 7, notificationId: 700 },
        },
        undefined,
      ],
    ]);
  });

  it('is not found when there was nothing to delete', async () => {
    await expect(deleteNotification({ delete: async () => false }, ref, context())).rejects.toThrow(notFound);
  });
});

describe('listNotifications', () => {
  /** Lists with a store that answers one stored notification and records what it was asked. */
  async function list(query: ListNotificationsQuery) {
    const asked: { filter: NotificationFilter; window: PageWindow<ScheduledNotification> }[] = [];
    const page = await listNotifications(
      {
        async list(_deploymentId, filter, window) {
          asked.push({ filter, window });
          return { items: [stored], cursors: ['c1'], hasNextPage: true };
        },
      },
      7,
      query,
      now,
    );
    return { page, asked: asked[0] };
  }

  it('answers a page of notifications with their next instants after now', async () => {
    const { page, asked } = await list({ first: 10, after: 'c0' });
    expect(page).toEqual({
      items: [expect.objectContaining({ id: 700, nextRunAt: '2026-11-25T09:00:00Z' })],
      pageInfo: { startCursor: 'c1', endCursor: 'c1', hasNextPage: true, hasPreviousPage: true },
    });
    expect(asked?.window).toMatchObject({ first: 10, after: 'c0' });
    expect(asked?.filter).toEqual({});
  });

  it('weighs each notification in the page as its answer', async () => {
    const { page, asked } = await list({ first: 10 });
    expect(asked?.window.bytesOf(stored)).toBe(JSON.stringify(page.items[0]).length + 1);
  });

  it('filters by dashboard id before public id', async () => {
    expect((await list({ first: 1, dashboardId: 70, dashboardPublicId: 'sales' })).asked?.filter).toEqual({
      dashboard: { dashboardId: 70 },
    });
    expect((await list({ first: 1, dashboardPublicId: 'sales' })).asked?.filter).toEqual({
      dashboard: { dashboardPublicId: 'sales' },
    });
  });

  it('filters by recipient user id, else e-mail, else embed user', async () => {
    const embed = { recipientEmbedTenantName: 'acme', recipientExternalId: 'x-1' };
    const filters = await Promise.all(
      [
        { recipientUserId: 1, recipientEmail: 'ada@example.com' },
        { recipientEmail: 'ada@example.com', ...embed },
        embed,
      ].map(async (query) => (await list({ first: 1, ...query })).asked?.filter),
    );
    expect(filters).toEqual([
      { recipient: { userId: 1 } },
      { recipient: { email: 'ada@example.com' } },
      { recipient: { embedTenantName: 'acme', externalId: 'x-1' } },
    ]);
  });

  it('ignores an embed tenant without an externalId, and an externalId without a tenant', async () => {
    expect((await list({ first: 1, recipientEmbedTenantName: 'acme' })).asked?.filter).toEqual({});
    expect((await list({ first: 1, recipientExternalId: 'x-1' })).asked?.filter).toEqual({});
  });
});

describe('listRecipients', () => {
  it('answers a page of the notification’s recipients, weighed as they answer', async () => {
    let window: PageWindow<RecipientOutput> | undefined;
    const page = await listRecipients(
      {
        async listRecipients(_ref, asked) {
          window = asked;
          return { items: [ada], cursors: ['r1'], hasNextPage: false };
        },
      },
      ref,
      { first: 5 },
    );
    expect(page).toEqual({
      items: [ada],
      pageInfo: { startCursor: 'r1', endCursor: 'r1', hasNextPage: false, hasPreviousPage: false },
    });
    expect(window?.first).toBe(5);
    expect(window?.bytesOf(ada)).toBe(JSON.stringify(ada).length + 1);
  });

  it('is not found when the notification does not exist', async () => {
    const listing = listRecipients({ listRecipients: async () => undefined }, ref, { first: 5 });
    await expect(listing).rejects.toThrow(notFound);
  });
});

describe('removeRecipients', () => {
  /** Removes with a store that records the targets it is given. */
  function removal(exists = true) {
    const removed: (readonly RemovalTarget[])[] = [];
    const recipients = {
      async removeRecipients(_ref: unknown, targets: readonly RemovalTarget[]) {
        removed.push(targets);
        return exists;
      },
    };
    return {
      removed,
      remove: (items: RemovedRecipientInput[]) => removeRecipients(recipients, ref, items, testAudit, 0),
    };
  }

  it('removes console users and embed users, and drops Slack items (no Slack recipient can exist)', async () => {
    const { removed, remove } = removal();
    await remove([
      { type: 'USER', id: 1 },
      { type: 'SLACK', id: 'C01' },
      { type: 'EMBED_USER', id: 9, embedTenantName: 'acme' },
    ]);
    expect(removed).toEqual([
      [
        { type: 'USER', userId: 1 },
        { type: 'EMBED_USER', embedUserId: 9, embedTenantName: 'acme' },
      ],
    ]);
  });

  it('refuses a recipient named twice, naming the repeat and its first place, before any write', async () => {
    const { removed, remove } = removal();
    const removing = remove([
      { type: 'USER', id: 1 },
      { type: 'EMBED_USER', id: 1, embedTenantName: 'acme' },
      { type: 'USER', id: 1 },
    ]);
    await expect(removing).rejects.toBeInstanceOf(ValidationError);
    await expect(removing).rejects.toMatchObject({
      problems: [{ path: 'recipients.2', message: 'is the same recipient as recipients[0]' }],
    });
    expect(removed).toEqual([]);
  });

  it('tells embed users of different tenants apart, and a console user from a Slack item of the same id', async () => {
    const { removed, remove } = removal();
    await remove([
      { type: 'EMBED_USER', id: 9, embedTenantName: 'acme' },
      { type: 'EMBED_USER', id: 9, embedTenantName: 'globex' },
      { type: 'SLACK', id: '1' },
      { type: 'USER', id: 1 },
    ]);
    expect(removed[0]).toHaveLength(3);
  });

  it('is not found when the notification does not exist', async () => {
    await expect(removal(false).remove([{ type: 'USER', id: 1 }])).rejects.toThrow(notFound);
  });
});
