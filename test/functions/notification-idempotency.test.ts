import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { documentClient, tableName } from '#lib/store/dynamo/client';
import * as keys from '#lib/store/dynamo/item-keys';
import { type LocalApi, startLocalApi } from '#test/support/local-api';
import { dailyAt, lifecycleClient, lifecycleFixture } from './lifecycle-helpers.ts';

let api: LocalApi;
let client: ReturnType<typeof lifecycleClient>;

beforeAll(async () => {
  api = await startLocalApi(lifecycleFixture);
  client = lifecycleClient(api);
});
afterAll(() => api.close());

const count = async () => (await client.list('first=200')).body.items.length;

/** The record of a key of the fixture's admin (user 1) in deployment 7, rewritten as a test needs it. */
async function setRecord(key: string, values: Record<string, unknown>): Promise<void> {
  const names = Object.keys(values);
  await documentClient().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: keys.idempotencyRecord(7, 'USER#1', key),
      UpdateExpression: `SET ${names.map((_, i) => `#n${i} = :v${i}`).join(', ')}`,
      ExpressionAttributeNames: Object.fromEntries(names.map((name, i) => [`#n${i}`, name])),
      ExpressionAttributeValues: Object.fromEntries(names.map((name, i) => [`:v${i}`, values[name]])),
      ConditionExpression: 'attribute_exists(pk)',
    }),
  );
}

describe('Idempotency-Key while the first request is in flight, and after', () => {
  it('makes exactly one notification of concurrent identical requests', async () => {
    const before = await count();
    const answers = await Promise.all(
      Array.from({ length: 5 }, () => client.create(dailyAt(16), { key: 'concurrent-1' })),
    );
    expect(await count()).toBe(before + 1);
    const created = answers.filter((answer) => answer.status === 201);
    expect(created.length).toBeGreaterThanOrEqual(1);
    expect(new Set(created.map((answer) => answer.body.id)).size).toBe(1);
    for (const answer of answers) expect([201, 409]).toContain(answer.status);
  });

  it('answers 409 while the holder of the key still works, and creates nothing', async () => {
    const first = await client.create(dailyAt(17), { key: 'in-flight-1' });
    // As the record stands while the first request has claimed the key and not yet written.
    await setRecord('in-flight-1', { state: 'pending', leaseUntil: Date.now() + 60_000 });
    const before = await count();
    const again = await client.create(dailyAt(17), { key: 'in-flight-1' });
    expect(again.status).toBe(409);
    expect(again.body.code).toBe('conflict');
    expect(await count()).toBe(before);
    expect(first.status).toBe(201);
  });

  it('takes over a key whose holder died before writing, and creates once', async () => {
    await client.create(dailyAt(18), { key: 'abandoned-1' });
    await setRecord('abandoned-1', { state: 'pending', leaseUntil: Date.now() - 1 });
    const before = await count();
    const taken = await client.create(dailyAt(18), { key: 'abandoned-1' });
    expect(taken.status).toBe(201);
    const repeat = await client.create(dailyAt(18), { key: 'abandoned-1' });
    expect(repeat.body).toEqual(taken.body);
    expect(await count()).toBe(before + 1);
  });

  it('forgets a key after 24 hours: the same request then creates anew', async () => {
    const first = await client.create(dailyAt(19), { key: 'expired-1' });
    await setRecord('expired-1', { expiresAt: Math.floor(Date.now() / 1000) - 1 });
    const again = await client.create(dailyAt(19), { key: 'expired-1' });
    expect(again.status).toBe(201);
    expect(again.body.id).not.toBe(first.body.id);
  });
});

describe('a repeat with the same key', () => {
  it('answers the first notification exactly, filters and time grains included', async () => {
    const body = {
      ...dailyAt(21),
      filters: [{ member: 'Orders.total', operator: 'between', value: [0.1, 1e21] }],
      timeGrains: [{ member: 'Orders.createdAt', grain: 'month' }],
    };
    const first = await client.create(body, { key: 'with-filters-1' });
    const again = await client.create(body, { key: 'with-filters-1' });
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.text).toBe(first.text);
    expect(again.body.filters).toEqual(body.filters);
  });
});

describe('the default page size', () => {
  it('is 100 items', async () => {
    const { body } = await client.create(dailyAt(20));
    const recipients = Array.from({ length: 150 }, (_, k) => ({
      embedTenantName: 'acme',
      externalId: `page-${k}@acme.example`,
    }));
    expect((await client.subscribe(body.id, recipients)).status).toBe(200);
    const first = await client.recipients(body.id);
    expect(first.body.items).toHaveLength(100);
    expect(first.body.pageInfo.hasNextPage).toBe(true);
    const rest = await client.recipients(body.id, `after=${first.body.pageInfo.endCursor}`);
    expect(rest.body.items).toHaveLength(50);
    expect(rest.body.pageInfo.hasNextPage).toBe(false);
  });
});
