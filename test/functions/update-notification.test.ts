import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeCron } from '#lib/domain/schedules/cron';
import { meterDynamoDb } from '#lib/local/dynamodb-meter';
import { documentClient, tableName } from '#lib/store/dynamo/client';
import * as keys from '#lib/store/dynamo/item-keys';
import { getItem } from '#lib/store/dynamo/items';
import { ADMIN_KEY, consoleUsers, MEMBER_KEY } from '#test/support/fixtures';
import { type LocalApi, startLocalApi } from '#test/support/local-api';
import { singleFieldUpdates } from '#test/support/single-field-updates';

let api: LocalApi;
let nextId = 1000;

/** A fresh DAILY 09:00 notification in deployment 7 for each test, so tests never see each other's writes. */
async function freshNotification(overrides: Record<string, unknown> = {}): Promise<string> {
  const id = nextId++;
  const { fixtureItems } = await import('#lib/fixtures/fixture');
  const { parseFixture } = await import('#lib/fixtures/fixture');
  const { batchWriteAll } = await import('#lib/store/dynamo/batch');
  const fixture = parseFixture({
    notifications: [
      {
        id,
        deploymentId: 7,
        dashboardId: 70,
        scheduleType: 'DAILY',
        minute: 0,
        hour: 9,
        timezone: 'Europe/Berlin',
        filters: [{ member: 'Orders.status', operator: 'equals', value: 'paid' }],
        timeGrains: [{ member: 'Orders.createdAt', grain: 'week' }],
        ...overrides,
      },
    ],
  });
  await batchWriteAll(fixtureItems(fixture).map((item) => ({ PutRequest: { Item: item } })));
  return `/v1/deployments/7/notifications/${id}`;
}

const put = (
  path: string,
  body?: unknown,
  options: { token?: string; headers?: Record<string, string> } = {},
) => api.request('PUT', path, { token: ADMIN_KEY, body, ...options });

beforeAll(async () => {
  api = await startLocalApi({
    users: consoleUsers,
    deployments: [
      { id: 7, name: 'Production' },
      { id: 8, name: 'Staging' },
    ],
    notifications: [{ id: 800, deploymentId: 8, dashboardId: 80, scheduleType: 'HOURLY', minute: 5 }],
  });
});
afterAll(() => api.close());

describe('PUT /v1/deployments/{deploymentId}/notifications/{id}', () => {
  it('answers 200 with the NotificationDto of what it stored', async () => {
    const path = await freshNotification();
    const response = await put(path, { scheduleType: 'WEEKLY', dayOfWeek: 1, notificationFormat: 'pdf' });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(response.body).toEqual({
      id: expect.any(Number),
      dashboardId: 70,
      deploymentId: 7,
      cronExpression: '0 9 * * 1',
      timezone: 'Europe/Berlin',
      isEnabled: true,
      humanReadableSchedule: 'At 09:00, only on Monday',
      notificationEnabled: true,
      notificationFormat: 'pdf',
      filters: [{ member: 'Orders.status', operator: 'equals', value: 'paid' }],
      timeGrains: [{ member: 'Orders.createdAt', grain: 'week' }],
      memberSwitchers: null,
      notificationAiSummary: false,
      // Monday 09:00 in Berlin: 08:00Z in winter, 07:00Z in summer.
      nextRunAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T0[78]:00:00Z$/),
      status: 'active',
      statusReason: null,
      pausedUntil: null,
      owner: null,
    });
    expect(new Date(response.body.nextRunAt).getUTCDay()).toBe(1);
    const again = await put(path, {});
    expect(again.body).toEqual(response.body);
  });

  it('stores the structured schedule, not the derived cron', async () => {
    const path = await freshNotification();
    await put(path, { scheduleType: 'MONTHLY', dayOfMonth: 15, minute: 30 });
    const id = Number(path.split('/').at(-1));
    const item = await getItem(keys.notification(7, id));
    expect(item).toMatchObject({ scheduleType: 'MONTHLY', dayOfMonth: 15, minute: 30, hour: 9 });
    expect(item).not.toHaveProperty('cronExpression');
  });

  it.each([
    [{ scheduleType: 'HOURLY', minute: 45 }, '45 * * * *', 'At 45 minutes past the hour'],
    [{ scheduleType: 'DAILY', hour: 17, minute: 5 }, '5 17 * * *', 'At 17:05'],
    [
      { scheduleType: 'WEEKLY', dayOfWeek: 0, hour: 23, minute: 59 },
      '59 23 * * 0',
      'At 23:59, only on Sunday',
    ],
    [{ scheduleType: 'MONTHLY', dayOfMonth: 1, hour: 0 }, '0 0 1 * *', 'At 00:00, on day 1 of the month'],
    [{ scheduleType: 'CUSTOM', customCron: '0 8 * * 1-5' }, '0 8 * * 1-5', 'At 08:00, Monday through Friday'],
  ])('derives the cron and its reading for %j', async (body, cron, reading) => {
    const response = await put(await freshNotification(), body);
    expect(response.status).toBe(200);
    expect(response.body.cronExpression).toBe(cron);
    expect(response.body.humanReadableSchedule).toBe(reading);
  });

  it('keeps the minute at 0 when it was never set', async () => {
    const path = await freshNotification({ scheduleType: 'HOURLY', minute: undefined, hour: undefined });
    const response = await put(path, { isEnabled: false });
    expect(response.body.cronExpression).toBe('0 * * * *');
  });

  it('names a field the new type needs that was never set', async () => {
    const response = await put(await freshNotification(), { scheduleType: 'WEEKLY' });
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({
      code: 'validation_failed',
      message: 'dayOfWeek: is required for a WEEKLY schedule',
      errors: [{ path: 'dayOfWeek', message: 'is required for a WEEKLY schedule' }],
    });
  });

  it('stores a supplied field the type does not use without changing the cron', async () => {
    const path = await freshNotification();
    const response = await put(path, { dayOfWeek: 3, customCron: '0 12 * * *' });
    expect(response.body.cronExpression).toBe('0 9 * * *');
    const switched = await put(path, { scheduleType: 'WEEKLY' });
    expect(switched.body.cronExpression).toBe('0 9 * * 3');
    const custom = await put(path, { scheduleType: 'CUSTOM' });
    expect(custom.body.cronExpression).toBe('0 12 * * *');
  });

  describe('ranges', () => {
    it.each([
      ['minute', 0],
      ['minute', 59],
      ['hour', 0],
      ['hour', 23],
      ['dayOfWeek', 0],
      ['dayOfWeek', 6],
      ['dayOfMonth', 1],
      ['dayOfMonth', 31],
    ])('accepts %s = %i', async (field, value) => {
      expect((await put(await freshNotification(), { [field]: value })).status).toBe(200);
    });

    it.each([
      ['minute', -1],
      ['minute', 60],
      ['hour', 24],
      ['dayOfWeek', 7],
      ['dayOfMonth', 0],
      ['dayOfMonth', 32],
      ['minute', 1.5],
      ['hour', '9'],
    ])('refuses %s = %j, naming the field', async (field, value) => {
      const response = await put(await freshNotification(), { [field]: value });
      expect(response.status).toBe(400);
      expect(response.body.code).toBe('validation_failed');
      expect(response.body.errors).toEqual([{ path: field, message: expect.any(String) }]);
      expect(response.body.message).toMatch(new RegExp(`^${field}: `));
    });
  });

  it.each(['UTC', 'America/New_York', 'Australia/Lord_Howe'])(
    'accepts the time zone %s',
    async (timezone) => {
      const response = await put(await freshNotification(), { timezone });
      expect(response.body.timezone).toBe(timezone);
    },
  );

  it.each(['+02:00', 'Europe/Atlantis', ''])('refuses the time zone %j', async (timezone) => {
    const response = await put(await freshNotification(), { timezone });
    expect(response.status).toBe(400);
    expect(response.body.errors[0].path).toBe('timezone');
  });

  it('refuses a custom cron that fires twice within 15 minutes', async () => {
    for (const customCron of ['*/5 * * * *', '0,5 * * * *']) {
      const response = await put(await freshNotification(), { scheduleType: 'CUSTOM', customCron });
      expect(response.status).toBe(400);
      expect(response.body.errors).toEqual([
        { path: 'customCron', message: expect.stringContaining('at least 15 minutes apart') },
      ]);
    }
  });

  it('parses custom crons strictly', async () => {
    for (const customCron of ['', '* * * *', '0 0 9 * * *', '0 9 1 * 1', '0 25 * * *']) {
      const response = await put(await freshNotification(), { scheduleType: 'CUSTOM', customCron });
      expect(response.status, customCron).toBe(400);
      expect(response.body.errors[0].path).toBe('customCron');
    }
  });

  describe('explicit null', () => {
    it('clears filters and timeGrains, which then read as null', async () => {
      const path = await freshNotification();
      const response = await put(path, { filters: null, timeGrains: null });
      expect(response.body.filters).toBeNull();
      expect(response.body.timeGrains).toBeNull();
      expect((await put(path, {})).body.filters).toBeNull();
    });

    it('means "unchanged" for every other field', async () => {
      const path = await freshNotification();
      const before = (await put(path, {})).body;
      const nulls = Object.fromEntries(
        [
          'scheduleType',
          'customCron',
          'minute',
          'hour',
          'dayOfWeek',
          'dayOfMonth',
          'timezone',
          'isEnabled',
          'notificationEnabled',
          'notificationFormat',
        ].map((field) => [field, null]),
      );
      const response = await put(path, nulls);
      expect(response.status).toBe(200);
      expect(response.body).toEqual(before);
    });
  });

  it('replaces filters and time grains as whole sets', async () => {
    const path = await freshNotification();
    const filters = [
      {
        member: 'Orders.amount',
        operator: 'between',
        value: [10, 20],
        startInclusive: true,
        endInclusive: false,
      },
      { member: 'Orders.note', operator: 'is_null' },
      { member: 'Orders.city', operator: 'contains', value: 'ber', caseSensitive: false },
    ];
    const response = await put(path, { filters, timeGrains: [] });
    expect(response.body.filters).toEqual(filters);
    expect(response.body.timeGrains).toEqual([]);
  });

  it('validates filters and time grains item by item', async () => {
    const response = await put(await freshNotification(), {
      filters: [
        { member: 'nodot', operator: 'equals', value: 1 },
        { member: 'A.b', operator: 'like', value: 1 },
        { member: 'A.b', operator: 'between', value: [1] },
        { member: 'A.b', operator: 'is_null', value: 3 },
        { member: 'A.b', operator: 'equals', value: { nested: true } },
      ],
      timeGrains: [{ member: 'A.b' }],
    });
    expect(response.status).toBe(400);
    expect(response.body.errors.map((problem: { path: string }) => problem.path)).toEqual([
      'filters.0.member',
      'filters.1.operator',
      'filters.2.value',
      'filters.3.value',
      'filters.4.value',
      'timeGrains.0.grain',
    ]);
    expect(response.body.message).toMatch(/^filters\[0\]\.member: .*\(and 5 more\)$/);
  });

  it('refuses unknown fields, naming them, at any depth', async () => {
    const response = await put(await freshNotification(), {
      timeZone: 'UTC',
      filters: [{ member: 'A.b', operator: 'equals', value: 1, cs: true }],
    });
    expect(response.status).toBe(400);
    expect(response.body.errors).toHaveLength(2);
    expect(response.body.errors).toEqual(
      expect.arrayContaining([
        { path: 'timeZone', message: 'is not a known field' },
        { path: 'filters.0.cs', message: 'is not a known field' },
      ]),
    );
  });

  it('refuses a body that is not an object', async () => {
    for (const body of ['[]', '"x"', '42', 'null']) {
      const response = await put(await freshNotification(), body);
      expect(response.status, body).toBe(400);
      expect(response.body.code).toBe('validation_failed');
    }
  });

  it('reads an absent or empty body as {}', async () => {
    const path = await freshNotification();
    expect((await api.request('PUT', path, { token: ADMIN_KEY })).status).toBe(200);
    const empty = await api.request('PUT', path, {
      token: ADMIN_KEY,
      body: '',
      headers: { 'content-type': 'application/json' },
    });
    expect(empty.status).toBe(200);
    expect(empty.body.cronExpression).toBe('0 9 * * *');
  });

  it('answers malformed JSON with 400 malformed_json', async () => {
    const response = await put(await freshNotification(), '{"hour": 9,');
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({
      code: 'malformed_json',
      message: 'The request body is not valid JSON',
    });
  });

  it('answers a non-JSON content type with 415', async () => {
    const response = await put(await freshNotification(), 'hour=9', {
      headers: { 'content-type': 'text/plain' },
    });
    expect(response.status).toBe(415);
    expect(response.body.code).toBe('unsupported_media_type');
  });

  it('accepts JSON with a charset parameter', async () => {
    const response = await put(
      await freshNotification(),
      { hour: 6 },
      { headers: { 'content-type': 'application/json; charset=utf-8' } },
    );
    expect(response.status).toBe(200);
  });

  it('answers a body over 5 MiB with 413', async () => {
    const response = await put(await freshNotification(), { customCron: 'x'.repeat(5 * 1024 * 1024 + 1) });
    expect(response.status).toBe(413);
    expect(response.body.code).toBe('payload_too_large');
  });

  describe('not found', () => {
    it.each([
      ['an unknown deployment', '/v1/deployments/99/notifications/800'],
      ['an unknown notification', '/v1/deployments/8/notifications/999999'],
      ['a notification of another deployment', '/v1/deployments/7/notifications/800'],
    ])('answers 404 for %s', async (_, path) => {
      const response = await put(path, { hour: 1 });
      expect(response.status).toBe(404);
      expect(response.body.code).toBe('not_found');
    });

    it('writes nothing to the other deployment', async () => {
      await put('/v1/deployments/7/notifications/800', { minute: 30 });
      expect((await getItem(keys.notification(8, 800)))?.minute).toBe(5);
    });
  });

  it.each(['abc', '0', '-1', '1.5', '1e3', '007'])(
    'refuses the path id %j with 400 naming it',
    async (id) => {
      const response = await put(`/v1/deployments/7/notifications/${id}`, {});
      expect(response.status).toBe(400);
      expect(response.body.errors).toEqual([{ path: 'id', message: 'must be a positive integer' }]);
    },
  );

  it('never touches the recipients', async () => {
    const path = await freshNotification();
    const id = Number(path.split('/').at(-1));
    const recipient = { ...keys.userRecipient(7, id, 1), type: 'USER', userId: 1, email: 'ada@example.com' };
    const { PutCommand } = await import('@aws-sdk/lib-dynamodb');
    await documentClient().send(new PutCommand({ TableName: tableName(), Item: recipient }));
    await put(path, { scheduleType: 'HOURLY', isEnabled: false, filters: null });
    const { Items } = await documentClient().send(
      new QueryCommand({
        TableName: tableName(),
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :recipients)',
        ExpressionAttributeValues: { ':pk': keys.notificationPartition(7, id), ':recipients': 'RECIPIENT#' },
      }),
    );
    expect(Items).toEqual([recipient]);
  });

  it('loses neither of two concurrent updates of different fields', async () => {
    const path = await freshNotification();
    const updates = [
      { hour: 6 },
      { minute: 45 },
      { timezone: 'Asia/Tokyo' },
      { isEnabled: false },
      { notificationEnabled: false },
      { notificationFormat: 'pdf' },
      { filters: null },
      { timeGrains: [] },
    ];
    const responses = await Promise.all(updates.map((body) => put(path, body)));
    expect(responses.map((response) => response.status)).toEqual(updates.map(() => 200));
    const final = (await put(path, {})).body;
    expect(final).toMatchObject({
      cronExpression: '45 6 * * *',
      timezone: 'Asia/Tokyo',
      isEnabled: false,
      notificationEnabled: false,
      notificationFormat: 'pdf',
      filters: null,
      timeGrains: [],
    });
  });

  it('costs three DynamoDB requests past authentication: the read, the conditional write with its event, the schedule state', async () => {
    const path = await freshNotification();
    const meter = meterDynamoDb(documentClient());
    try {
      await put(path, { hour: 7 });
      // Authentication by API key reads the key link and the user (the test env disables the principal cache).
      expect(meter.byOperation.GetItem?.requests).toBe(2);
      // The notification and its schedule entry, in one Query: the version the write is conditional on.
      expect(meter.byOperation.Query?.requests).toBe(1);
      // The change and its audit event, in one transaction of two items.
      expect(meter.byOperation.TransactWriteItems?.requests).toBe(1);
      // The schedule's new reading and upcoming instants.
      expect(meter.byOperation.PutItem?.requests).toBe(1);
      expect(meter.totalRequests()).toBe(5);
      meter.reset();
      // Another field: the read and the write; the schedule entry came with the read.
      await put(path, { notificationFormat: 'pdf' });
      expect(meter.byOperation.TransactWriteItems?.requests).toBe(1);
      expect(meter.totalRequests()).toBe(4);
      meter.reset();
      // The same again changes nothing: the read alone, no write, no event.
      await put(path, { notificationFormat: 'pdf' });
      expect(meter.byOperation.TransactWriteItems).toBeUndefined();
      expect(meter.totalRequests()).toBe(3);
    } finally {
      meter.detach();
    }
  });

  it('applies all of 50 concurrent single-field updates, losing none', async () => {
    const path = await freshNotification();
    // Each of five fields is set 10 times; the last value of each is i = 45..49.
    const updates = singleFieldUpdates(50);
    const meter = meterDynamoDb(documentClient());
    try {
      const responses = await Promise.all(updates.map((body) => put(path, body)));
      expect(responses.filter((response) => response.status === 200)).toHaveLength(50);
      // One write of the notification each (the schedule entry's writes are PutItem, or an UpdateItem
      // of its version when the schedule came out as stored).
      expect(meter.byOperation.TransactWriteItems?.requests).toBeGreaterThanOrEqual(50);
    } finally {
      meter.detach();
    }
    const item = await getItem(keys.notification(7, Number(path.split('/').pop())));
    // One write per update that changed something (a flag set to what it already was writes nothing):
    // every minute and hour at least, and each write recorded its event.
    const events = await api.request('GET', `${path}/events?first=200`, { token: ADMIN_KEY });
    const updated = events.body.items.filter((event: { action: string }) => event.action === 'updated');
    expect(item?.version).toBe(updated.length);
    expect(updated.length).toBeGreaterThanOrEqual(20);
    // Whatever order the schedule states landed in, the stored one is the final schedule's.
    const final = (await put(path, {})).body;
    expect(final.humanReadableSchedule).toBe(describeCron(final.cronExpression));
  });

  describe('authorization comes before any lookup or validation', () => {
    it('answers a member 403 alike for existing and unknown notifications, and for a bad body', async () => {
      const path = await freshNotification();
      const meter = meterDynamoDb(documentClient());
      try {
        const responses = await Promise.all([
          put(path, { hour: 1 }, { token: MEMBER_KEY }),
          put('/v1/deployments/99/notifications/12345', { hour: 1 }, { token: MEMBER_KEY }),
          put(path, '{bad json', { token: MEMBER_KEY }),
          put(path, { hour: 99, nope: 1 }, { token: MEMBER_KEY }),
        ]);
        expect(responses.map((response) => response.status)).toEqual([403, 403, 403, 403]);
        expect(new Set(responses.map((response) => response.body.message)).size).toBe(1);
        // Only the credential lookups (key link + user) ran: nothing about the target.
        expect(meter.totalRequests()).toBe(responses.length * 2);
      } finally {
        meter.detach();
      }
    });

    it('answers a caller without credentials 401 before reading the body', async () => {
      const response = await put('/v1/deployments/7/notifications/abc', '{bad', { token: undefined });
      expect(response.status).toBe(401);
      expect(response.headers.get('www-authenticate')).toBe('Bearer');
    });
  });

  it('shapes every error as the contract says, with no internals', async () => {
    const response = await put(await freshNotification(), { minute: 99 });
    expect(Object.keys(response.body).sort()).toEqual(['code', 'errors', 'message', 'requestId']);
    expect(response.body.requestId).toBe(response.headers.get('apigw-requestid'));
    expect(response.text).not.toMatch(/at .*\.ts:\d+/);
  });
});
