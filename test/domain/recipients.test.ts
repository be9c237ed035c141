import { describe, expect, it } from 'vitest';
import type { ConsoleUser, EmbedUser } from '#lib/domain/entities';
import type { EmbedUserRef } from '#lib/domain/recipients/recipient-kinds';
import {
  type AddRecipientsStore,
  addRecipients,
  type DirectoryRequest,
} from '#lib/domain/recipients/recipients';
import { normalizeExternalId, type RecipientInput } from '#lib/domain/recipients/recipients-input';
import { identityOf, type StoredRecipient } from '#lib/domain/recipients/recipients-resolution';
import {
  ConflictError,
  NotFoundError,
  UnavailableError,
  UnresolvableRecipientError,
  UnsupportedRecipientError,
  ValidationError,
} from '#lib/errors';

const notification = { deploymentId: 7, id: 700 };

const user = (id: number, email: string, active = true): ConsoleUser => ({
  id,
  email,
  username: `user${id}`,
  role: 'member',
  active,
});

const refOf = (embedUser: EmbedUser): EmbedUserRef => ({
  embedTenantName: embedUser.embedTenantName,
  normalizedExternalId: normalizeExternalId(embedUser.externalId),
});

/** An in-memory store with the repository's contract; `beforeCreate` lets another writer land first. */
function memoryRepository(options: { beforeCreate?: (embedUsers: Map<string, EmbedUser>) => void } = {}) {
  const users = new Map<number, ConsoleUser>([
    [11, user(11, 'Grace@Example.com')],
    [12, user(12, 'linus@example.com')],
    [16, user(16, 'gone@example.com', false)],
  ]);
  const links = new Map<string, number>([
    ['grace@example.com', 11],
    ['linus@example.com', 12],
    ['gone@example.com', 16],
    // Left behind when user 12 changed address.
    ['old-linus@example.com', 12],
  ]);
  const embedUsers = new Map<string, EmbedUser>();
  const rows = new Map<string, StoredRecipient>();
  const calls: { method: string; detail?: unknown }[] = [];
  let counter = 0;

  const repository: AddRecipientsStore = {
    notificationIsLive: async () => true,
    recordIfLive: async () => true,
    async lookUp(request: DirectoryRequest) {
      calls.push({ method: 'lookUp', detail: request });
      const ofOurs = request.recipients?.of.id === notification.id;
      return {
        ...(request.notification?.id === notification.id && {
          notification: { ...notification, dashboardId: 70 },
        }),
        recipients: ofOurs
          ? (request.recipients?.refs ?? []).flatMap((ref) => rows.get(identityOf(ref)) ?? [])
          : [],
        tenants: (request.tenants ?? []).filter((name) => name === 'acme'),
        users: (request.userIds ?? []).flatMap((id) => users.get(id) ?? []),
        emailLinks: (request.emails ?? []).flatMap((email) => {
          const userId = links.get(email);
          return userId === undefined ? [] : [{ email, userId }];
        }),
        embedUsers: (request.embedUsers ?? []).flatMap((ref) => embedUsers.get(identityOf(ref)) ?? []),
      };
    },
    async createEmbedUsers(_target, created) {
      calls.push({ method: 'createEmbedUsers', detail: created.length });
      options.beforeCreate?.(embedUsers);
      // Like the counter in the creating transaction: an id only for an embed user that is created.
      return created.map(({ embedUser, recipient }) => {
        const identity = identityOf(refOf(embedUser));
        if (embedUsers.has(identity) || rows.has(identityOf(recipient))) return undefined;
        counter += 1;
        embedUsers.set(identity, { ...embedUser, embedUserId: counter });
        rows.set(identityOf(recipient), { ...recipient, embedUserId: counter });
        return counter;
      });
    },
    async createRecipients(_target, recipients) {
      calls.push({ method: 'createRecipients', detail: recipients.length });
      const existed = recipients.filter((recipient) => rows.has(identityOf(recipient)));
      for (const recipient of recipients)
        if (!rows.has(identityOf(recipient))) rows.set(identityOf(recipient), recipient);
      return existed;
    },
    async updateRecipients(_target, updates) {
      calls.push({ method: 'updateRecipients', detail: updates.length });
      // A row is what was read as long as no other write replaced it.
      const stale = updates.filter(({ previous }) => rows.get(identityOf(previous)) !== previous);
      for (const update of updates)
        if (!stale.includes(update)) rows.set(identityOf(update.next), update.next);
      return stale;
    },
  };
  const written = () =>
    calls.filter((call) =>
      ['createEmbedUsers', 'createRecipients', 'updateRecipients'].includes(call.method),
    );
  return { repository, calls, written, rows, embedUsers };
}

const embed = (externalId: string, extra: Partial<RecipientInput> = {}): RecipientInput =>
  ({ type: 'EMBED_USER', embedTenantName: 'acme', externalId, ...extra }) as RecipientInput;

describe('addRecipients', () => {
  it('touches no storage for Slack items or duplicates in the request', async () => {
    const memory = memoryRepository();
    await expect(
      addRecipients(memory.repository, notification, [
        { type: 'USER', userId: 11 },
        { type: 'SLACK', channelId: 'C1' },
      ]),
    ).rejects.toBeInstanceOf(UnsupportedRecipientError);
    await expect(
      addRecipients(memory.repository, notification, [embed('a@x.example'), embed('A@X.example')]),
    ).rejects.toBeInstanceOf(ValidationError);
    expect(memory.calls).toEqual([]);
  });

  it('is not found for a notification that does not exist, after one round of reads', async () => {
    const memory = memoryRepository();
    await expect(
      addRecipients(memory.repository, { deploymentId: 7, id: 701 }, [{ type: 'USER', userId: 999 }]),
    ).rejects.toThrow(new NotFoundError('Notification 701 of deployment 7'));
    expect(memory.calls.map((call) => call.method)).toEqual(['lookUp']);
  });

  it('reads the notification and only the rows the request names, never the others', async () => {
    const memory = memoryRepository();
    await addRecipients(memory.repository, notification, [{ type: 'USER', userId: 12 }]);
    memory.calls.length = 0;
    await addRecipients(memory.repository, notification, [
      { type: 'USER', userId: 11 },
      embed('A@x.example'),
      { type: 'USER', email: 'linus@example.com' },
    ]);
    const lookUps = memory.calls.filter((call) => call.method === 'lookUp').map((call) => call.detail);
    expect(lookUps).toEqual([
      {
        notification,
        recipients: {
          of: notification,
          refs: [
            { type: 'USER', userId: 11 },
            { type: 'EMBED_USER', embedTenantName: 'acme', normalizedExternalId: 'a@x.example' },
          ],
        },
        tenants: ['acme'],
        userIds: [11],
        emails: ['linus@example.com'],
      },
      {
        userIds: [12],
        embedUsers: [{ embedTenantName: 'acme', normalizedExternalId: 'a@x.example' }],
        recipients: { of: notification, refs: [{ type: 'USER', userId: 12 }] },
      },
    ]);
  });

  it('reports a row another request created in between as unchanged, and one it changed as compared anew', async () => {
    const memory = memoryRepository();
    const first = await addRecipients(memory.repository, notification, [
      embed('a@x.example', { groups: ['old'] } as Partial<RecipientInput>),
    ]);
    expect(first.createdRecipients).toHaveLength(1);
    // Another request lands between our read and our write, each time.
    const create = memory.repository.createRecipients;
    memory.repository.createRecipients = async (target, recipients) => {
      await create(target, recipients);
      return create(target, recipients);
    };
    const result = await addRecipients(memory.repository, notification, [{ type: 'USER', userId: 11 }]);
    expect(result.createdRecipients).toEqual([]);
    expect(result.unchangedRecipients.map((item) => item.type)).toEqual(['USER']);

    const update = memory.repository.updateRecipients;
    memory.repository.updateRecipients = async (target, updates) => {
      await update(target, updates);
      return update(target, updates);
    };
    const changed = await addRecipients(memory.repository, notification, [
      embed('a@x.example', { groups: ['new'] } as Partial<RecipientInput>),
    ]);
    expect(changed.updatedRecipients).toEqual([]);
    expect(changed.unchangedRecipients).toHaveLength(1);
  });

  it('updates an embed recipient whose supplied properties differ, and leaves one whose are the same', async () => {
    const memory = memoryRepository();
    const groups = (names: string[]) => ({ groups: names }) as Partial<RecipientInput>;
    await addRecipients(memory.repository, notification, [embed('a@x.example', groups(['old']))]);
    const changed = await addRecipients(memory.repository, notification, [
      embed('a@x.example', groups(['new'])),
    ]);
    expect(changed).toEqual({
      createdRecipients: [],
      updatedRecipients: [
        {
          type: 'EMBED_USER',
          embedTenantName: 'acme',
          externalId: 'a@x.example',
          embedUserId: 1,
          email: 'a@x.example',
        },
      ],
      unchangedRecipients: [],
    });
    expect([...memory.rows.values()]).toMatchObject([
      { type: 'EMBED_USER', properties: { groups: ['new'] } },
    ]);
    memory.calls.length = 0;
    const same = await addRecipients(memory.repository, notification, [
      embed('a@x.example', groups(['new'])),
    ]);
    expect(same.unchangedRecipients).toHaveLength(1);
    expect(memory.written()).toEqual([]);
  });

  it('reads in its second round only the embed users the notification has no row for', async () => {
    const memory = memoryRepository();
    await addRecipients(memory.repository, notification, [embed('a@x.example')]);
    memory.calls.length = 0;
    await addRecipients(memory.repository, notification, [embed('a@x.example'), embed('b@x.example')]);
    const lookUps = memory.calls.filter((call) => call.method === 'lookUp').map((call) => call.detail);
    expect(lookUps[1]).toMatchObject({
      embedUsers: [{ embedTenantName: 'acme', normalizedExternalId: 'b@x.example' }],
    });
  });

  it('is not found when the notification was deleted while its rows were written', async () => {
    const memory = memoryRepository();
    await addRecipients(memory.repository, notification, [{ type: 'USER', userId: 11 }]);
    memory.repository.notificationIsLive = async () => false;
    await expect(
      addRecipients(memory.repository, notification, [
        { type: 'USER', userId: 11 },
        { type: 'USER', userId: 12 },
      ]),
    ).rejects.toThrow(NotFoundError);
  });

  it('asks nothing more of a request that wrote nothing', async () => {
    const memory = memoryRepository();
    await addRecipients(memory.repository, notification, [{ type: 'USER', userId: 11 }]);
    memory.repository.notificationIsLive = async () => false;
    const again = await addRecipients(memory.repository, notification, [{ type: 'USER', userId: 11 }]);
    expect(again.unchangedRecipients).toHaveLength(1);
  });

  it('writes nothing at all while any item does not resolve', async () => {
    const memory = memoryRepository();
    await expect(
      addRecipients(memory.repository, notification, [embed('new@x.example'), { type: 'USER', userId: 16 }]),
    ).rejects.toBeInstanceOf(UnresolvableRecipientError);
    expect(memory.written()).toEqual([]);
  });

  it('does not resolve an e-mail through a link its user has since given up', async () => {
    const memory = memoryRepository();
    const failure = await addRecipients(memory.repository, notification, [
      { type: 'USER', email: 'old-linus@example.com' },
    ]).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(UnresolvableRecipientError);
  });

  it('reads users found by e-mail in a second round, unless the first round read them by id', async () => {
    const byId = memoryRepository();
    await addRecipients(byId.repository, notification, [
      { type: 'USER', userId: 11 },
      { type: 'USER', userId: 12, email: 'LINUS@example.com' },
    ]);
    expect(byId.calls.filter((call) => call.method === 'lookUp')).toHaveLength(1);

    const byEmail = memoryRepository();
    await addRecipients(byEmail.repository, notification, [{ type: 'USER', email: 'grace@EXAMPLE.com' }]);
    const lookUps = byEmail.calls.filter((call) => call.method === 'lookUp').map((call) => call.detail);
    expect(lookUps).toEqual([
      {
        notification,
        recipients: { of: notification, refs: [] },
        tenants: [],
        userIds: [],
        emails: ['grace@example.com'],
      },
      {
        userIds: [11],
        embedUsers: [],
        recipients: { of: notification, refs: [{ type: 'USER', userId: 11 }] },
      },
    ]);
  });

  it('creates all new embed users in one call, and makes none when there are none', async () => {
    const memory = memoryRepository();
    const result = await addRecipients(memory.repository, notification, [
      embed('a@x.example'),
      { type: 'USER', userId: 11 },
      embed('b@x.example'),
    ]);
    expect(
      result.createdRecipients.map((item) => ('embedUserId' in item ? item.embedUserId : item.userId)),
    ).toEqual([1, 11, 2]);
    expect(memory.calls.filter((call) => call.method === 'createEmbedUsers')).toEqual([
      { method: 'createEmbedUsers', detail: 2 },
    ]);

    memory.calls.length = 0;
    await addRecipients(memory.repository, notification, [embed('a@x.example'), embed('B@x.example')]);
    expect(memory.written()).toEqual([]);
  });

  it('adopts an embed user another request created first: its id, externalId and e-mail, in the answer and the row', async () => {
    const other: EmbedUser = {
      embedUserId: 500,
      embedTenantName: 'acme',
      externalId: 'Race@X.example',
      email: 'race@other.example',
    };
    const memory = memoryRepository({
      beforeCreate: (embedUsers) => embedUsers.set(identityOf(refOf(other)), other),
    });
    const result = await addRecipients(memory.repository, notification, [
      embed('race@x.example', { email: 'mine@x.example' } as Partial<RecipientInput>),
      embed('calm@x.example'),
    ]);
    expect(result.createdRecipients).toEqual([
      {
        type: 'EMBED_USER',
        embedTenantName: 'acme',
        externalId: 'Race@X.example',
        embedUserId: 500,
        email: 'race@other.example',
      },
      {
        type: 'EMBED_USER',
        embedTenantName: 'acme',
        externalId: 'calm@x.example',
        // The embed user another request created took no id of ours.
        embedUserId: 1,
        email: 'calm@x.example',
      },
    ]);
    expect(memory.rows.get(identityOf(refOf(other)))).toMatchObject({
      embedUserId: 500,
      email: 'race@other.example',
    });
    expect(memory.embedUsers.size).toBe(2);
    // The contested item is read again: its row and the embed user another request created.
    const race = { embedTenantName: 'acme', normalizedExternalId: 'race@x.example' };
    expect(memory.calls.filter((call) => call.method === 'lookUp')[2]?.detail).toMatchObject({
      recipients: { refs: [{ type: 'EMBED_USER', ...race }] },
      embedUsers: [race],
    });
  });

  it('refuses a console user item that names neither userId nor email, before any write', async () => {
    const memory = memoryRepository();
    const failure = await addRecipients(memory.repository, notification, [
      { type: 'USER', userId: 11 },
      { type: 'USER' },
    ]).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(UnresolvableRecipientError);
    expect((failure as UnresolvableRecipientError).problems).toEqual([
      { path: 'recipients.1', message: 'needs userId or email to identify a USER recipient' },
    ]);
    expect(memory.written()).toEqual([]);
  });

  it('answers 409 after four rounds of writes that each meet another request, reading again after each', async () => {
    const memory = memoryRepository();
    // Another request's row is there at every write and gone at every read: the item never settles.
    memory.repository.createRecipients = async (_target, recipients) => {
      memory.calls.push({ method: 'createRecipients', detail: recipients.length });
      return [...recipients];
    };
    const failure = await addRecipients(memory.repository, notification, [
      { type: 'USER', userId: 11 },
      embed('a@x.example'),
    ]).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ConflictError);
    expect((failure as ConflictError).message).toBe(
      'The recipients are being changed by others; retry the request',
    );
    expect(memory.calls.map((call) => call.method)).toEqual([
      'lookUp',
      'lookUp',
      'createEmbedUsers',
      'createRecipients',
      ...Array.from({ length: 3 }, () => ['lookUp', 'createRecipients']).flat(),
      'lookUp',
    ]);
    expect(memory.calls.filter((call) => call.method === 'lookUp')[2]?.detail).toMatchObject({
      recipients: { refs: [{ type: 'USER', userId: 11 }] },
      embedUsers: [],
    });
  });

  it('settles without a conflict when the fifth read finds every contested row written', async () => {
    const memory = memoryRepository();
    let writes = 0;
    const create = memory.repository.createRecipients;
    memory.repository.createRecipients = async (target, recipients) => {
      writes += 1;
      // The fourth time, another request's row is there to stay.
      if (writes === 4) await create(target, recipients);
      memory.calls.push({ method: 'createRecipients', detail: recipients.length });
      return [...recipients];
    };
    const result = await addRecipients(memory.repository, notification, [{ type: 'USER', userId: 11 }]);
    expect(writes).toBe(4);
    expect(result.unchangedRecipients).toEqual([
      { type: 'USER', userId: 11, email: 'Grace@Example.com', username: 'user11' },
    ]);
  });

  it('answers 503 when an embed user that cancelled our creation cannot be read back', async () => {
    const memory = memoryRepository();
    memory.repository.createEmbedUsers = async (_target, created) => created.map(() => undefined);
    await expect(
      addRecipients(memory.repository, notification, [embed('gone@x.example')]),
    ).rejects.toBeInstanceOf(UnavailableError);
  });

  it('waits for every write in flight before reporting a failed one', async () => {
    const memory = memoryRepository();
    let putFinished = false;
    memory.repository.createEmbedUsers = async () => {
      throw new UnavailableError();
    };
    const create = memory.repository.createRecipients;
    memory.repository.createRecipients = async (...args) => {
      await new Promise((resolve) => setTimeout(resolve, 20));
      const existed = await create(...args);
      putFinished = true;
      return existed;
    };
    await expect(
      addRecipients(memory.repository, notification, [embed('n@x.example'), { type: 'USER', userId: 11 }]),
    ).rejects.toBeInstanceOf(UnavailableError);
    expect(putFinished).toBe(true);
  });
});
