import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type DynamoMeter, meterDynamoDb } from '#lib/local/dynamodb-meter';
import { buildEvent, lambdaContext } from '#lib/local/http-adapter';
import { routes } from '#lib/routes';
import { documentClient } from '#lib/store/dynamo/client';
import * as keys from '#lib/store/dynamo/item-keys';
import { getItem, type Item } from '#lib/store/dynamo/items';
import {
  barrier,
  crash,
  type DynamoFaults,
  type Fault,
  injectDynamoDbFaults,
  throttling,
} from '#test/support/dynamodb-faults';
import { type LocalApi, startLocalApi } from '#test/support/local-api';
import {
  ADMIN,
  addRecipients,
  embedItems,
  embedUsers,
  expectEachInExactlyOneBucket,
  recipientsFixture,
  storedRows,
} from './add-recipients-helpers.ts';

/**
 * Whatever fails part-way (throttling, unprocessed items, a crash after the k-th batch, the deadline,
 * a concurrent request), no recipient is lost, duplicated or reported in the wrong bucket, and
 * repeating the request completes it.
 */

let api: LocalApi;
let faults: DynamoFaults;
let meter: DynamoMeter;
/** The embed users that exist before any scenario, subscribed to notification 799. */
let existing: Map<string, number>;

beforeAll(async () => {
  api = await startLocalApi(recipientsFixture([...Array.from({ length: 40 }, (_, i) => 701 + i), 799]));
  faults = injectDynamoDbFaults(documentClient());
  meter = meterDynamoDb(documentClient());
  const seeded = await addRecipients(api, 799, embedItems(30, 'x'));
  existing = new Map(
    seeded.body.createdRecipients.map((item: { externalId: string; embedUserId: number }) => [
      item.externalId,
      item.embedUserId,
    ]),
  );
});
afterEach(() => faults.clear());
afterAll(async () => {
  faults.detach();
  meter.detach();
  await api.close();
});

/**
 * The request of every scenario on notification `n`: 5 embed recipients whose groups change, 30
 * embed users that exist elsewhere, 60 new embed users, 1 console user already subscribed and 2 new.
 * It takes 2 transactions (60 new embed users), 32 conditional PutItems (rows of users that exist)
 * and 5 UpdateItems (changed properties).
 */
function scenario(n: number) {
  const changing = embedItems(5, `e${n}`);
  const request = [
    ...changing.map((item) => ({ ...item, groups: ['new'] })),
    ...embedItems(30, 'x'),
    ...embedItems(60, `n${n}`),
    { userId: 11 },
    { userId: 12 },
    { email: 'barbara@example.com' },
  ];
  const identities = request.map((item) =>
    'externalId' in item
      ? `EMBED_USER:acme:${item.externalId}`
      : `USER:${'userId' in item ? item.userId : 13}`,
  );
  const seed = () =>
    addRecipients(api, n, [...changing.map((item) => ({ ...item, groups: ['old'] })), { userId: 11 }]);
  return { request, identities, seed };
}

const rowIdentity = (row: Item) =>
  row.type === 'USER'
    ? `USER:${row.userId}`
    : `EMBED_USER:${row.embedTenantName}:${row.normalizedExternalId}`;

async function rowsByIdentity(n: number): Promise<Map<string, Item>> {
  return new Map((await storedRows(n)).map((row) => [rowIdentity(row), row]));
}

/** The replay answers each recipient by what was stored before it, and leaves the notification complete. */
async function expectConverged(
  n: number,
  body: Parameters<typeof expectEachInExactlyOneBucket>[0],
  before: Map<string, Item>,
  identities = scenario(n).identities,
) {
  expectEachInExactlyOneBucket(body, identities);
  const expected = { created: [] as string[], updated: [] as string[], unchanged: [] as string[] };
  for (const identity of identities) {
    const row = before.get(identity);
    if (!row) expected.created.push(identity);
    else if (identity.includes(`:e${n}-`) && row.groupsJson !== '["new"]') expected.updated.push(identity);
    else expected.unchanged.push(identity);
  }
  const named = (items: { type: string; userId?: number; embedTenantName?: string; externalId?: string }[]) =>
    items.map((item) =>
      item.type === 'USER' ? `USER:${item.userId}` : `EMBED_USER:acme:${item.externalId?.toLowerCase()}`,
    );
  expect(named(body.createdRecipients as never)).toEqual(expected.created);
  expect(named(body.updatedRecipients as never)).toEqual(expected.updated);
  expect(named(body.unchangedRecipients as never)).toEqual(expected.unchanged);

  const rows = await rowsByIdentity(n);
  expect([...rows.keys()].sort()).toEqual([...identities].sort());
  const users = new Map(
    (await embedUsers()).map((user) => [
      `${user.embedTenantName}:${String(user.externalId).toLowerCase()}`,
      user,
    ]),
  );
  const ids = new Set<number>();
  for (const [identity, row] of rows) {
    if (row.type !== 'EMBED_USER') continue;
    const user = users.get(`${row.embedTenantName}:${row.normalizedExternalId}`);
    expect(row.embedUserId, identity).toBe(user?.embedUserId);
    expect(ids.has(row.embedUserId as number), `${identity} shares its embed user id`).toBe(false);
    ids.add(row.embedUserId as number);
    if (identity.includes(':x-')) expect(row.embedUserId).toBe(existing.get(row.externalId as string));
    if (identity.includes(`:e${n}-`)) expect(row.groupsJson).toBe('["new"]');
  }
  // Every output shows the stored embed user id.
  for (const item of [...body.createdRecipients, ...body.updatedRecipients, ...body.unchangedRecipients]) {
    if (item.type === 'EMBED_USER') {
      expect(item.embedUserId).toBe(
        rows.get(`EMBED_USER:acme:${String(item.externalId).toLowerCase()}`)?.embedUserId,
      );
    }
  }
}

/** Runs the scenario with `fault` applied to `operations`, then without: the replay completes it. */
async function failThenReplay(
  n: number,
  rule: { operations: string[]; when?: (call: number) => boolean; fault: Fault },
  expectedStatus: number,
) {
  const { request, seed } = scenario(n);
  await seed();
  const seeded = await rowsByIdentity(n);
  faults.add(rule);
  const failed = await addRecipients(api, n, request);
  faults.clear();
  expect(failed.status).toBe(expectedStatus);
  const before = await rowsByIdentity(n);
  // Nothing but new or completed rows: a failure never loses what was there.
  for (const identity of seeded.keys()) expect(before.has(identity)).toBe(true);
  const replay = await addRecipients(api, n, request);
  expect(replay.status).toBe(200);
  await expectConverged(n, replay.body, before);

  meter.reset();
  const again = await addRecipients(api, n, request);
  expect(again.body.unchangedRecipients).toHaveLength(request.length);
  expect(meter.writeRequests()).toBe(0);
  return failed;
}

describe('throttling past the SDK retries answers 503, and the replay converges', () => {
  const cases: [string, number][] = [
    ['BatchGetItem', 702],
    ['UpdateItem', 703],
    ['TransactWriteItems', 704],
    ['PutItem', 705],
  ];
  for (const [operation, n] of cases) {
    it(`on ${operation}`, async () => {
      const failed = await failThenReplay(
        n,
        { operations: [operation], when: (call) => call === 1, fault: throttling() },
        503,
      );
      expect(failed.body.code).toBe('unavailable');
    });
  }

  it('writes nothing when a read is throttled', async () => {
    const { request, seed } = scenario(706);
    await seed();
    const seeded = await storedRows(706);
    faults.add({ operations: ['BatchGetItem'], fault: throttling() });
    expect((await addRecipients(api, 706, request)).status).toBe(503);
    expect(await storedRows(706)).toEqual(seeded);
  });
});

describe('transient cancellations of a transaction are retried within the request', () => {
  for (const [code, n] of [
    ['ThrottlingError', 707],
    ['TransactionConflict', 708],
  ] as const) {
    it(`on a ${code} reason`, async () => {
      const { request, seed } = scenario(n);
      await seed();
      const before = await rowsByIdentity(n);
      faults.clear();
      faults.add({
        operations: ['TransactWriteItems'],
        when: (call) => call <= 2,
        fault: { kind: 'cancel', code },
      });
      const response = await addRecipients(api, n, request);
      expect(response.status).toBe(200);
      // Two transactions of rows and the one recording the audit event, with the two cancelled
      // attempts sent again.
      expect(faults.calls('TransactWriteItems')).toBe(5);
      await expectConverged(n, response.body, before);
    });
  }

  it('gives up with 503 when every attempt is cancelled, and the replay converges', async () => {
    await failThenReplay(
      709,
      { operations: ['TransactWriteItems'], fault: { kind: 'cancel', code: 'ThrottlingError' } },
      503,
    );
  });
});

describe('unprocessed keys', () => {
  it('retries half-processed BatchGets until every key is read', async () => {
    const { request, seed } = scenario(711);
    await seed();
    const before = await rowsByIdentity(711);
    faults.clear();
    faults.add({ operations: ['BatchGetItem'], fault: { kind: 'unprocessed', fraction: 0.5 } });
    const response = await addRecipients(api, 711, request);
    expect(response.status).toBe(200);
    expect(faults.calls('BatchGetItem')).toBeGreaterThan(1);
    await expectConverged(711, response.body, before);
  });

  it('answers 503 without writing when BatchGets stay unprocessed', async () => {
    const { request, seed } = scenario(713);
    await seed();
    const seeded = await storedRows(713);
    faults.add({ operations: ['BatchGetItem'], fault: { kind: 'unprocessed', fraction: 1 } });
    expect((await addRecipients(api, 713, request)).status).toBe(503);
    expect(await storedRows(713)).toEqual(seeded);
  });
});

describe('a crash after the k-th write batch', () => {
  for (const k of [0, 1, 2, 3]) {
    it(`after batch ${k}: the replay creates the rest and reports the written ones as unchanged`, async () => {
      const failed = await failThenReplay(
        714 + k,
        { operations: ['TransactWriteItems', 'PutItem'], when: (call) => call > k, fault: crash() },
        500,
      );
      expect(failed.body).toMatchObject({ code: 'internal', message: 'Internal server error' });
    });
  }
});

describe('concurrent requests provisioning the same embed users', () => {
  const shared = embedItems(3, 'shared');

  async function concurrently(first: number, second: number) {
    // Both requests have read (no embed user yet) before either transaction is sent.
    faults.clear();
    faults.add({
      operations: ['TransactWriteItems'],
      when: (call) => call <= 2,
      fault: { kind: 'hook', run: barrier(2) },
    });
    return Promise.all([
      addRecipients(api, first, [...shared, ...embedItems(1, `own${first}`)]),
      addRecipients(api, second, [...shared, ...embedItems(1, `own${second}`)]),
    ]);
  }

  const idsOf = (body: { createdRecipients: { externalId: string; embedUserId: number }[] }) =>
    Object.fromEntries(body.createdRecipients.map((item) => [item.externalId, item.embedUserId]));

  it('create exactly one embed user each, and both answers show its id', async () => {
    const before = (await embedUsers()).length;
    const [a, b] = await concurrently(720, 721);
    expect([a.status, b.status]).toEqual([200, 200]);
    // The loser's transaction was cancelled: it adopted the winner's embed users and created its rows apart.
    expect(faults.calls('TransactWriteItems')).toBeGreaterThanOrEqual(3);
    expect(faults.calls('PutItem')).toBe(3);
    const [idsA, idsB] = [idsOf(a.body), idsOf(b.body)];
    for (const { externalId } of shared) expect(idsA[externalId]).toBe(idsB[externalId]);
    const users = await embedUsers();
    expect(users).toHaveLength(before + 5);
    for (const { externalId } of shared) {
      expect(users.find((user) => user.externalId === externalId)?.embedUserId).toBe(idsA[externalId]);
    }
    for (const n of [720, 721]) {
      const rows = await storedRows(n);
      expect(rows).toHaveLength(4);
      for (const row of rows)
        expect(row.embedUserId).toBe((n === 720 ? idsA : idsB)[row.externalId as string]);
    }
  });

  it('on the same notification end with one row per embed user, reported created by one answer only', async () => {
    const before = (await embedUsers()).length;
    faults.clear();
    faults.add({
      operations: ['TransactWriteItems'],
      when: (call) => call <= 2,
      fault: { kind: 'hook', run: barrier(2) },
    });
    const items = embedItems(3, 'same');
    const [a, b] = await Promise.all([addRecipients(api, 722, items), addRecipients(api, 722, items)]);
    expect([a.status, b.status]).toEqual([200, 200]);
    const [winner, loser] = a.body.createdRecipients.length > 0 ? [a, b] : [b, a];
    expect(winner.body.createdRecipients).toHaveLength(3);
    expect(loser.body.createdRecipients).toEqual([]);
    expect(loser.body.unchangedRecipients).toEqual(winner.body.createdRecipients);
    // The loser found the winner's rows on reading again: nothing left for it to write.
    expect(faults.calls('PutItem')).toBe(0);
    // Rows are in key order, which for these names is request order.
    const rows = await storedRows(722);
    expect(rows.map((row) => row.embedUserId)).toEqual(
      winner.body.createdRecipients.map((item: { embedUserId: number }) => item.embedUserId),
    );
    expect(await embedUsers()).toHaveLength(before + 3);
  });
});

describe('embed user ids numbered in the creating transaction', () => {
  it('two requests that read the same counter both succeed, one after reading it again, with no gap', async () => {
    const counter = async () =>
      ((await getItem(keys.counter('embedUser')))?.value as number | undefined) ?? 0;
    const before = await counter();
    // Both have read the counter before either transaction is sent: one of them finds it moved.
    faults.clear();
    faults.add({
      operations: ['TransactWriteItems'],
      when: (call) => call <= 2,
      fault: { kind: 'hook', run: barrier(2) },
    });
    const [a, b] = await Promise.all([
      addRecipients(api, 723, embedItems(3, 'numbered-a')),
      addRecipients(api, 724, embedItems(3, 'numbered-b')),
    ]);
    expect([a.status, b.status]).toEqual([200, 200]);
    // Each request's transaction of rows and its audit record, and the one row transaction sent again.
    expect(faults.calls('TransactWriteItems')).toBe(5);
    const ids = [...a.body.createdRecipients, ...b.body.createdRecipients].map(
      (item: { embedUserId: number }) => item.embedUserId,
    );
    expect([...ids].sort((x, y) => x - y)).toEqual([1, 2, 3, 4, 5, 6].map((i) => before + i));
    expect(await counter()).toBe(before + 6);
  });
});

describe('the Lambda deadline', () => {
  const route = routes.find((candidate) => candidate.operation === 'add-recipients');

  async function invoke(n: number, recipients: unknown, remainingTimeMs: () => number) {
    const { handler } = await import('#functions/add-recipients');
    const body = Buffer.from(JSON.stringify({ recipients }));
    const event = buildEvent(
      {
        method: 'POST',
        url: `/v1/deployments/7/notifications/${n}/recipients`,
        headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
        body,
      },
      route as NonNullable<typeof route>,
      { deploymentId: '7', id: String(n) },
    );
    const context = {
      ...lambdaContext('add-recipients', 30_000, 'local'),
      getRemainingTimeInMillis: remainingTimeMs,
    };
    const result = await handler(event, context);
    return { status: result.statusCode, body: JSON.parse(result.body ?? '{}') };
  }

  it('answers 503 before reading when too little time is left', async () => {
    meter.reset();
    const response = await invoke(730, [{ userId: 12 }], () => 1200);
    expect(response.status).toBe(503);
    expect(response.body.code).toBe('unavailable');
    expect(Object.keys(meter.byOperation)).toEqual(['GetItem']);
  });

  it('stops writing when time runs short, answers 503, and the replay converges', async () => {
    // 10 transactions, 8 in flight at once: the clock jumps while the first ones run, so the last two never start.
    const request = [...embedItems(500, 'late'), { userId: 12 }];
    const identities = request.map((item) =>
      'userId' in item ? 'USER:12' : `EMBED_USER:acme:${item.externalId}`,
    );
    let clock = 30_000;
    faults.add({
      operations: ['TransactWriteItems'],
      when: (call) => call === 1,
      fault: {
        kind: 'hook',
        run: () => {
          clock = 1200;
        },
      },
    });
    const failed = await invoke(731, request, () => clock);
    faults.clear();
    expect(failed.status).toBe(503);
    expect(failed.body.code).toBe('unavailable');
    const before = await rowsByIdentity(731);
    expect(before.size).toBeGreaterThan(0);
    expect(before.size).toBeLessThan(request.length);
    const replay = await addRecipients(api, 731, request);
    expect(replay.status).toBe(200);
    await expectConverged(731, replay.body, before, identities);
  });
});
