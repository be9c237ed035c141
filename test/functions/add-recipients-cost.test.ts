import { afterAll, beforeAll, expect, it } from 'vitest';
import { type DynamoMeter, meterDynamoDb, type OperationCount } from '#lib/local/dynamodb-meter';
import { encodeRecipient } from '#lib/store/codecs/recipients';
import { batchWriteAll } from '#lib/store/dynamo/batch';
import { documentClient } from '#lib/store/dynamo/client';
import * as keys from '#lib/store/dynamo/item-keys';
import { getItem } from '#lib/store/dynamo/items';
import { type LocalApi, startLocalApi } from '#test/support/local-api';
import {
  addRecipients,
  bucketsOf,
  deploymentOf,
  embedItems,
  embedUsers,
  identityOf,
  recipientsFixture,
  storedRows,
} from './add-recipients-helpers.ts';

/**
 * What adding recipients costs follows the request alone: the same request costs the same requests and
 * read units on a notification with no recipients and on one with thousands. And under concurrency,
 * each answer tells what its own request did.
 */

let api: LocalApi;
let meter: DynamoMeter;
beforeAll(async () => {
  api = await startLocalApi(recipientsFixture([731, 732, 733, 734]));
  meter = meterDynamoDb(documentClient());
});
afterAll(async () => {
  meter.detach();
  await api.close();
});

/** `count` embed recipient rows written straight into the notification's partition. */
async function seedRows(notificationId: number, count: number) {
  const notification = { deploymentId: deploymentOf(notificationId), id: notificationId, dashboardId: 70 };
  const rows = embedItems(count, 'stored').map((item, i) => ({
    PutRequest: {
      Item: encodeRecipient(notification, {
        type: 'EMBED_USER',
        embedTenantName: 'acme',
        normalizedExternalId: item.externalId,
        externalId: item.externalId,
        embedUserId: 100_000 + i,
        email: item.externalId,
        properties: { groups: ['viewers'], securityContext: { region: 'emea', team: `t${i % 17}` } },
      }),
    },
  }));
  await batchWriteAll(rows, { concurrency: 4 });
}

/** Every operation's requests and items, and the read units (writes differ only by timing). */
const readSet = (counts: Record<string, OperationCount>) =>
  Object.fromEntries(
    Object.entries(counts).map(([operation, { requests, items, readCapacityUnits }]) => [
      operation,
      { requests, items, readCapacityUnits },
    ]),
  );

it('reads the same keys, in the same requests, on a notification with 0 and with 3000 recipients', async () => {
  const known = { embedTenantName: 'acme', externalId: 'known@customer.example', groups: ['viewers'] };
  for (const n of [731, 732]) expect((await addRecipients(api, n, [known])).status).toBe(200);
  await seedRows(732, 3000);
  expect(await storedRows(732)).toHaveLength(3001);

  // A console user by id and by e-mail, a changed embed recipient, a new embed user.
  const request = (n: number) => [
    { userId: 11 },
    { email: 'linus@example.com' },
    { ...known, groups: ['editors'] },
    { embedTenantName: 'acme', externalId: `new-${n}@customer.example` },
  ];
  const costs = [];
  for (const n of [731, 732]) {
    meter.reset();
    const response = await addRecipients(api, n, request(n));
    expect(response.status).toBe(200);
    expect(bucketsOf(response.body)).toEqual({
      created: ['USER:11', 'USER:12', `EMBED_USER:acme:new-${n}@customer.example`],
      updated: ['EMBED_USER:acme:known@customer.example'],
      unchanged: [],
    });
    costs.push({ reads: readSet(meter.byOperation), requests: meter.totalRequests() });
  }
  const [empty, full] = costs;
  expect(full).toEqual(empty);
  expect(empty?.reads.Query).toBeUndefined();
  expect(empty?.reads.Scan).toBeUndefined();
  // The notification, 3 rows (by userId and embed key), a tenant, an e-mail link and user 11; then the
  // new embed user, the linked user and its row.
  expect(empty?.reads.BatchGetItem).toMatchObject({ requests: 2, items: 10 });
});

it('20 concurrent identical adds: each recipient is reported created by exactly one answer, no id burned', async () => {
  const existingEmbedUser = { embedTenantName: 'acme', externalId: 'existing@customer.example' };
  expect((await addRecipients(api, 733, [existingEmbedUser])).status).toBe(200);
  const usersBefore = (await embedUsers()).length;
  const idsTaken = async () => ((await getItem(keys.counter('embedUser')))?.value as number | undefined) ?? 0;
  const idsBefore = await idsTaken();
  const items = [
    { userId: 11 },
    { email: 'linus@example.com' },
    existingEmbedUser,
    ...embedItems(4, 'racing', { groups: ['viewers'] }),
  ];
  const identities = ['USER:11', 'USER:12', ...items.slice(2).map((item) => identityOf(item))];

  const responses = await Promise.all(Array.from({ length: 20 }, () => addRecipients(api, 734, items)));

  expect(responses.map((response) => response.status)).toEqual(Array(20).fill(200));
  const claims = new Map(identities.map((identity) => [identity, 0]));
  for (const { body } of responses) {
    const buckets = bucketsOf(body);
    expect([...buckets.created, ...buckets.unchanged].sort()).toEqual([...identities].sort());
    expect(buckets.updated).toEqual([]);
    for (const identity of buckets.created) claims.set(identity, (claims.get(identity) ?? 0) + 1);
  }
  expect(Object.fromEntries(claims)).toEqual(Object.fromEntries(identities.map((identity) => [identity, 1])));
  // One embed user per identity, and every answer shows the id that is stored.
  const users = await embedUsers();
  expect(users).toHaveLength(usersBefore + 4);
  // No id is taken by the requests that lost the race for an embed user.
  expect((await idsTaken()) - idsBefore).toBe(4);
  const stored = new Map((await storedRows(734)).map((row) => [row.externalId ?? row.userId, row]));
  expect(stored.size).toBe(7);
  for (const { body } of responses) {
    for (const item of [...body.createdRecipients, ...body.unchangedRecipients]) {
      if (item.type === 'EMBED_USER') expect(item.embedUserId).toBe(stored.get(item.externalId)?.embedUserId);
    }
  }
});
