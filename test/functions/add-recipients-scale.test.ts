import { afterAll, beforeAll, expect, it } from 'vitest';
import { type DynamoMeter, meterDynamoDb } from '#lib/local/dynamodb-meter';
import { documentClient } from '#lib/store/dynamo/client';
import { type LocalApi, startLocalApi } from '#test/support/local-api';
import {
  addRecipients,
  embedItems,
  embedUsers,
  expectEachInExactlyOneBucket,
  identityOf,
  recipientsFixture,
  storedRows,
} from './add-recipients-helpers.ts';

let api: LocalApi;
let meter: DynamoMeter;
beforeAll(async () => {
  api = await startLocalApi(recipientsFixture([701, 702]));
  meter = meterDynamoDb(documentClient());
});
afterAll(async () => {
  meter.detach();
  await api.close();
});

const requestsBy = (operation: string) => meter.byOperation[operation]?.requests ?? 0;

it('adds 1000 new embed recipients within 60 requests, and a replay changes nothing in at most 13 requests', async () => {
  const items = embedItems(1000, 'scale', { groups: ['viewers'] });
  const identities = items.map((item) => `EMBED_USER:acme:${item.externalId}`);

  meter.reset();
  const first = await addRecipients(api, 701, items);
  expect(first.status).toBe(200);
  expect(first.body.createdRecipients).toHaveLength(1000);
  expect(first.body.createdRecipients.map(identityOf)).toEqual(identities);
  const ids = first.body.createdRecipients.map((item: { embedUserId: number }) => item.embedUserId);
  expect(new Set(ids).size).toBe(1000);
  // Authentication (2 GetItem) + 11 BatchGets (the notification, 1000 rows, the tenant) + 10 BatchGets
  // (1000 embed users) + 1 counter + 20 transactions of rows + 1 transaction recording the audit event
  // together with the check that the notification still exists.
  expect(requestsBy('GetItem')).toBe(2);
  expect(requestsBy('Query')).toBe(0);
  expect(requestsBy('BatchGetItem')).toBe(21);
  expect(requestsBy('UpdateItem')).toBe(1);
  expect(requestsBy('TransactWriteItems')).toBe(21);
  expect(requestsBy('BatchWriteItem')).toBe(0);
  expect(meter.totalRequests()).toBeLessThanOrEqual(60);

  meter.reset();
  const replay = await addRecipients(api, 701, items);
  expect(replay.status).toBe(200);
  expect(replay.body.createdRecipients).toEqual([]);
  expect(replay.body.updatedRecipients).toEqual([]);
  expect(replay.body.unchangedRecipients).toEqual(first.body.createdRecipients);
  expect(meter.writeRequests()).toBe(0);
  expect(meter.totalRequests()).toBeLessThanOrEqual(13);

  expect(await storedRows(701)).toHaveLength(1000);
  expect(await embedUsers()).toHaveLength(1000);
});

it('reads rows of any size: a replay of 90 rows of about 15 KB each finds them all unchanged', async () => {
  // 1.3 MB in the partition: more than one Query page would hold, read here by key.
  const items = embedItems(90, 'wide', { securityContext: { blob: 'x'.repeat(15_000) } });
  const first = await addRecipients(api, 702, items);
  expect(first.status).toBe(200);
  const next = [...items, { embedTenantName: 'acme', externalId: 'last@customer.example' }];

  meter.reset();
  const replay = await addRecipients(api, 702, next);
  expect(requestsBy('Query')).toBe(0);
  expectEachInExactlyOneBucket(
    replay.body,
    next.map((item) => `EMBED_USER:acme:${item.externalId}`),
  );
  expect(replay.body.unchangedRecipients).toHaveLength(90);
  expect(replay.body.createdRecipients.map(identityOf)).toEqual(['EMBED_USER:acme:last@customer.example']);
});
