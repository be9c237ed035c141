import { describe, expect, it } from 'vitest';
import { check } from '#lib/http/schemas/common';
import { KEY_PART_MAX_BYTES, keyPartLimits } from '#lib/limits';
import { freshForEachTest } from '#test/support/fresh-module';

const schemas = freshForEachTest(() => import('#lib/http/schemas/lifecycle'));
const creates = freshForEachTest(() => import('#lib/http/schemas/notification-create'));
const notifications = freshForEachTest(() => import('#lib/http/schemas/notifications'));
const pathSchemas = freshForEachTest(() => import('#lib/http/schemas/paths'));
const paths = (result: { problems: { path: string }[] }) => result.problems.map((problem) => problem.path);

describe('createNotificationInput', () => {
  const create = (body: Record<string, unknown>) =>
    check(creates().createNotificationInput, { scheduleType: 'DAILY', ...body });

  it('takes exactly one of dashboardId and dashboardPublicId, and drops null fields', () => {
    expect(create({ dashboardId: 7, hour: null }).value).toEqual({ scheduleType: 'DAILY', dashboardId: 7 });
    expect(create({ dashboardPublicId: 'sales', dashboardId: null }).value).toEqual({
      scheduleType: 'DAILY',
      dashboardPublicId: 'sales',
    });
    expect(create({}).problems).toEqual([
      { path: 'dashboardId', message: 'exactly one of dashboardId and dashboardPublicId is required' },
    ]);
    expect(create({ dashboardId: 7, dashboardPublicId: 'sales' }).problems).toEqual([
      { path: 'dashboardPublicId', message: 'exactly one of dashboardId and dashboardPublicId is required' },
    ]);
  });

  it('needs a schedule type, and checks the update fields as an update does', () => {
    expect(paths(check(creates().createNotificationInput, { dashboardId: 7 }))).toEqual(['scheduleType']);
    expect(create({ dashboardId: 7, minute: 60 }).problems).toEqual([
      { path: 'minute', message: 'must be from 0 to 59' },
    ]);
  });

  it('needs a positive whole dashboardId and a publicId that fits a key', () => {
    for (const dashboardId of [0, -1, 1.5]) {
      expect(create({ dashboardId }).problems).toContainEqual({
        path: 'dashboardId',
        message: 'must be a positive integer',
      });
    }
    expect(create({ dashboardPublicId: '' }).problems).toContainEqual({
      path: 'dashboardPublicId',
      message: 'must not be empty',
    });
    const longest = 'p'.repeat(keyPartLimits.publicId);
    expect(create({ dashboardPublicId: longest }).problems).toEqual([]);
    expect(create({ dashboardPublicId: `${longest}p` }).problems).toContainEqual({
      path: 'dashboardPublicId',
      message: `must be at most ${keyPartLimits.publicId} characters`,
    });
    expect(create({ dashboardPublicId: 'a\uD800' }).problems).toContainEqual({
      path: 'dashboardPublicId',
      message: 'must be valid Unicode text',
    });
  });
});

describe('idempotencyKeyHeader', () => {
  const header = (value: string) => check(notifications().idempotencyKeyHeader, { 'idempotency-key': value });

  it('takes 1 to 255 visible ASCII characters, and passes other headers', () => {
    expect(header('!').problems).toEqual([]);
    expect(header('~'.repeat(255)).problems).toEqual([]);
    expect(check(notifications().idempotencyKeyHeader, { host: 'x' }).value).toEqual({ host: 'x' });
    for (const value of ['', 'a'.repeat(256), 'a b', 'é', 'a\tb', 'x\u007f']) {
      expect(header(value).problems).toEqual([
        { path: 'idempotency-key', message: 'must be 1 to 255 visible ASCII characters' },
      ]);
    }
  });
});

describe('listNotificationsQuery', () => {
  const list = (query: Record<string, string>) => check(schemas().listNotificationsQuery, query);

  it('reads the filters and the page', () => {
    expect(list({ dashboardId: '7', recipientUserId: '3', first: '5' }).value).toEqual({
      first: 5,
      dashboardId: 7,
      recipientUserId: 3,
    });
    expect(list({ recipientEmbedTenantName: 'acme', recipientExternalId: 'ann' }).problems).toEqual([]);
    expect(list({ dashboardPublicId: 'sales', recipientEmail: 'a@b.example' }).problems).toEqual([]);
  });

  it('refuses both dashboard filters at once', () => {
    expect(list({ dashboardId: '7', dashboardPublicId: 'sales' }).problems).toEqual([
      { path: 'dashboardPublicId', message: 'at most one of dashboardId and dashboardPublicId may be given' },
    ]);
  });

  it('needs the embed tenant and externalId together', () => {
    expect(list({ recipientEmbedTenantName: 'acme' }).problems).toEqual([
      {
        path: 'recipientExternalId',
        message: 'recipientEmbedTenantName and recipientExternalId go together',
      },
    ]);
    expect(list({ recipientExternalId: 'ann' }).problems).toEqual([
      {
        path: 'recipientEmbedTenantName',
        message: 'recipientEmbedTenantName and recipientExternalId go together',
      },
    ]);
  });

  it('takes one recipient filter at most', () => {
    const oneTooMany: Record<string, string>[] = [
      { recipientUserId: '3', recipientEmail: 'a@b.example' },
      { recipientUserId: '3', recipientEmbedTenantName: 'acme', recipientExternalId: 'ann' },
      { recipientEmail: 'a@b.example', recipientEmbedTenantName: 'acme', recipientExternalId: 'ann' },
    ];
    for (const query of oneTooMany) {
      expect(list(query).problems).toEqual([
        { path: 'recipientEmail', message: 'at most one recipient filter may be given' },
      ]);
    }
  });

  it('bounds the looked-up text by its URL-encoded bytes', () => {
    expect(list({ recipientEmail: 'a'.repeat(KEY_PART_MAX_BYTES) }).problems).toEqual([]);
    expect(list({ recipientEmail: '€'.repeat(KEY_PART_MAX_BYTES) }).problems).toEqual([
      {
        path: 'recipientEmail',
        message: `must be at most ${KEY_PART_MAX_BYTES} characters once URL-encoded`,
      },
    ]);
    expect(list({ recipientEmail: 'a\uD800' }).problems).toEqual([
      { path: 'recipientEmail', message: 'must be valid Unicode text' },
    ]);
    expect(paths(list({ dashboardId: '0', recipientUserId: 'x' }))).toEqual([
      'dashboardId',
      'recipientUserId',
    ]);
  });
});

describe('removeRecipientsInput', () => {
  const remove = (recipients: unknown[]) => check(schemas().removeRecipientsInput, { recipients });

  it('reads each kind of recipient, ids given as numbers or digits', () => {
    expect(
      remove([
        { type: 'USER', id: 3 },
        { type: 'USER', id: '4', embedTenantName: null },
        { type: 'EMBED_USER', id: '15', embedTenantName: 'acme' },
        { type: 'SLACK', id: 'C123' },
      ]).value,
    ).toEqual({
      recipients: [
        { type: 'USER', id: 3 },
        { type: 'USER', id: 4 },
        { type: 'EMBED_USER', id: 15, embedTenantName: 'acme' },
        { type: 'SLACK', id: 'C123' },
      ],
    });
  });

  it('refuses ids that are not positive integers, a missing tenant, and a tenant on other kinds', () => {
    expect(remove([{ type: 'USER', id: '0' }]).problems).toContainEqual({
      path: 'recipients.0.id',
      message: 'must be a positive integer',
    });
    expect(paths(remove([{ type: 'USER', id: 0 }]))).toEqual(['recipients.0.id']);
    for (const id of ['x5', '5x', '07']) {
      expect(paths(remove([{ type: 'USER', id }]))).toEqual(['recipients.0.id']);
    }
    expect(paths(remove([{ type: 'EMBED_USER', id: 5 }]))).toEqual(['recipients.0.embedTenantName']);
    expect(paths(remove([{ type: 'USER', id: 5, embedTenantName: 'acme' }]))).toEqual([
      'recipients.0.embedTenantName',
    ]);
    expect(remove([{ type: 'SLACK', id: '' }]).problems).toEqual([
      { path: 'recipients.0.id', message: 'must not be empty' },
    ]);
  });

  it('takes 1 to 1000 recipients', () => {
    const users = (count: number) => Array.from({ length: count }, (_, i) => ({ type: 'USER', id: i + 1 }));
    expect(remove(users(1000)).problems).toEqual([]);
    expect(remove(users(1001)).problems).toEqual([
      { path: 'recipients', message: 'must have at most 1000 items' },
    ]);
    expect(remove([]).problems).toEqual([
      { path: 'recipients', message: 'must list at least one recipient' },
    ]);
  });
});

describe('deploymentPath', () => {
  it('reads the deployment id', () => {
    expect(check(pathSchemas().deploymentPath, { deploymentId: '7' }).value).toEqual({ deploymentId: 7 });
    expect(paths(check(pathSchemas().deploymentPath, { deploymentId: '7', id: '1' }))).toEqual(['id']);
  });
});
