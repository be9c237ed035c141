import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { normalizeExternalId } from '#lib/domain/recipients-input';
import { batchGetAll } from '#lib/store/batch';
import { documentClient, tableName } from '#lib/store/client';
import { encodeRecipient } from '#lib/store/codecs/recipients';
import { keys } from '#lib/store/keys';
import { TIME_AT_SIZE_RATIO } from './budgets.ts';
import { type DynamoWork, describe, watch } from './dynamodb.ts';
import {
  ADMIN,
  CONCURRENCY_NOTIFICATION_IDS,
  embedRecipient,
  putItems,
  SCALE_NOTIFICATION_IDS,
} from './fixture.ts';
import { type Bench, part, section } from './report.ts';
import { expectStatus, type Stack } from './stack.ts';
import { ms, summarize } from './stats.ts';

/**
 * What a request costs must follow the request, not what is stored: adding 1 and 10 recipients to
 * notifications that already hold 0 to 50,000 recipients, with requests and read units compared across
 * sizes. And answers that stay true under concurrency: 50 concurrent single-field PUTs on one
 * notification, 20 concurrent identical adds of the same 7 recipients.
 */

const BATCHES = [1, 10];
const [PUT_TARGET, ADD_TARGET, ELSEWHERE] = CONCURRENCY_NOTIFICATION_IDS;
const recipientsPath = (id: number) => `/v1/deployments/7/notifications/${id}/recipients`;
const add = (stack: Stack, id: number, recipients: object[]) =>
  stack.request('POST', recipientsPath(id), { authorization: ADMIN, body: { recipients } });
const embed = (externalId: string) => ({ embedTenantName: 'acme', externalId });

async function measureSizes(stack: Stack, sizes: readonly number[], runs: number) {
  // The caller's lookup and the function's first load stay out of the figures.
  expectStatus(await add(stack, ELSEWHERE, [embed('warm-up@example.com')]), 200, 'warm-up');
  const properties = (i: number) => ({
    groups: ['viewers'],
    securityContext: { region: 'emea', team: `team-${i % 31}` },
  });
  for (const [index, stored] of sizes.entries()) {
    const notification = { deploymentId: 7, id: SCALE_NOTIFICATION_IDS[index] as number, dashboardId: 70 };
    await putItems(
      Array.from({ length: stored }, (_, i) =>
        encodeRecipient(notification, embedRecipient('stored', i, properties(i))),
      ),
      8,
    );
  }
  const cases = sizes.flatMap((stored, index) =>
    BATCHES.map((adding) => ({
      stored,
      adding,
      id: SCALE_NOTIFICATION_IDS[index] as number,
      times: [] as number[],
      work: undefined as DynamoWork | undefined,
    })),
  );
  // Run by run, every case in turn, starting one further each run: no size is favoured by its place.
  for (let run = 0; run < runs; run++) {
    for (const c of [...cases.slice(run % cases.length), ...cases.slice(0, run % cases.length)]) {
      const recipients = Array.from({ length: c.adding }, (_, i) =>
        embed(`added-${c.stored}-${c.adding}-${run}-${i}@example.com`),
      );
      const send = async () => {
        const started = performance.now();
        expectStatus(await add(stack, c.id, recipients), 200, `add ${c.adding} to ${c.stored}`);
        return performance.now() - started;
      };
      // Metered once; the meter's own work stays out of the timed runs.
      if (run === 0) c.work = (await watch(send)).work;
      else c.times.push(await send());
    }
  }
  return cases.map(({ stored, adding, work, times }) => ({
    stored,
    adding,
    work: work as DynamoWork,
    ms: summarize(times),
  }));
}

const stored = async (key: Record<string, unknown>) =>
  (await documentClient().send(new GetCommand({ TableName: tableName(), Key: key, ConsistentRead: true })))
    .Item;

/**
 * How many of these embed users exist, read by their keys: an embed user is keyed by tenant and
 * externalId, so no duplicate can hide elsewhere (a table Scan here took tens of minutes once the full
 * bench had filled the table: DynamoDB Local's Scan slows with the square of the table).
 */
const embedUsersStored = async (recipients: object[]) =>
  (
    await batchGetAll(
      recipients.flatMap((r) =>
        'externalId' in r ? [keys.embedUser('acme', normalizeExternalId(String(r.externalId)))] : [],
      ),
    )
  ).length;

async function measureConcurrency(stack: Stack) {
  // 50 PUTs, each setting one field (5 fields, 10 times each), all at once.
  const fields = [
    (i: number) => ({ minute: i }),
    (i: number) => ({ hour: i % 24 }),
    (i: number) => ({ isEnabled: i % 2 === 0 }),
    (i: number) => ({ notificationFormat: i % 2 === 0 ? 'pdf' : 'png' }),
    (i: number) => ({ timezone: i % 2 === 0 ? 'Asia/Tokyo' : 'UTC' }),
  ];
  const version = async () =>
    ((await stored(keys.notification(7, PUT_TARGET)))?.version as number | undefined) ?? 0;
  const versionBefore = await version();
  const { result: putReplies, work } = await watch(() =>
    Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        stack.request('PUT', `/v1/deployments/7/notifications/${PUT_TARGET}`, {
          authorization: ADMIN,
          body: fields[i % fields.length]?.(i),
        }),
      ),
    ),
  );
  const applied = putReplies.filter((reply) => reply.status === 200).length;
  const puts = {
    sent: putReplies.length,
    applied,
    conflicts: putReplies.filter((reply) => reply.status === 409).length,
    retries: (work.byOperation.UpdateItem ?? 0) - putReplies.length,
    // Every applied PUT moves the version by one: fewer moves than 200s means one overwrote another.
    lostUpdates: applied - ((await version()) - versionBefore),
  };

  // 20 identical adds: 2 console users, 1 embed user that exists (recipient elsewhere), 4 new ones.
  const existing = embed('concurrent-existing@example.com');
  expectStatus(await add(stack, ELSEWHERE, [existing]), 200, 'the existing embed user');
  const recipients = [
    { userId: 2 },
    { email: 'dan@example.com' },
    existing,
    ...[0, 1, 2, 3].map((i) => embed(`concurrent-${i}@example.com`)),
  ];
  const counter = async () => ((await stored(keys.counter('embedUser')))?.value as number | undefined) ?? 0;
  const [usersBefore, counterBefore] = [await embedUsersStored(recipients), await counter()];
  const addReplies = await Promise.all(Array.from({ length: 20 }, () => add(stack, ADD_TARGET, recipients)));
  const identity = (item: Record<string, unknown>) =>
    item.type === 'USER' ? `user ${item.userId}` : `embed ${item.externalId}`;
  const createdClaims: Record<string, number> = {};
  for (const { body } of addReplies.filter((reply) => reply.status === 200)) {
    for (const item of [...body.createdRecipients, ...body.unchangedRecipients])
      createdClaims[identity(item)] ??= 0;
    for (const item of body.createdRecipients)
      createdClaims[identity(item)] = (createdClaims[identity(item)] ?? 0) + 1;
  }
  const adds = {
    sent: addReplies.length,
    ok: addReplies.filter((reply) => reply.status === 200).length,
    recipients: recipients.length,
    createdClaims,
    newEmbedUsers: 4,
    embedUsersCreated: (await embedUsersStored(recipients)) - usersBefore,
    idsReserved: (await counter()) - counterBefore,
  };
  return { puts, adds };
}

export async function costSection(bench: Bench, stack: Stack) {
  const { budgets } = bench;
  // The smoke's sizes: enough to show growth (a partition past one Query page), cheap to fill.
  const sizes = bench.smoke ? [0, 5_000] : [0, 1_000, 10_000, 50_000];
  const runs = bench.smoke ? 2 : 11;
  const title = `Add recipients at size: ${BATCHES.join(' and ')} new to notifications holding ${sizes.join(', ')}`;
  section(bench, `${title} (time: median of ${runs - 1})`, { grid: true });
  const figures = (await part(bench, 'cost at size', () => measureSizes(stack, sizes, runs))) ?? [];
  for (const s of figures) {
    const at = `add-recipients ${s.adding} new at ${s.stored} stored`;
    const empty = figures.find((f) => f.adding === s.adding && f.stored === 0);
    budgets.show(`${at}: requests`, s.work.requests);
    budgets.show(`${at}: by operation`, describe(s.work.byOperation));
    budgets.show(`${at}: RCU`, s.work.readUnits);
    budgets.show(`${at}: time median`, ms(s.ms.median));
    if (!empty || s === empty) continue;
    budgets.gate(`${at}: DynamoDB requests`, s.work.requests - empty.work.requests, 0, 'more than at 0');
    budgets.gate(`${at}: read units`, s.work.readUnits - empty.work.readUnits, 0, 'RCU more than at 0');
    budgets.timing(`${at}: time / time at 0`, s.ms.median / empty.ms.median, TIME_AT_SIZE_RATIO);
  }

  section(
    bench,
    'Concurrency: 50 concurrent single-field PUTs on one notification; 20 concurrent identical adds',
  );
  const concurrency = await part(bench, 'concurrency', () => measureConcurrency(stack));
  if (concurrency) {
    const { puts, adds } = concurrency;
    const claims = Object.values(adds.createdClaims);
    budgets.show('50 concurrent PUTs: answers', `${puts.applied} × 200, ${puts.conflicts} × 409`);
    budgets.show('50 concurrent PUTs: write retries', puts.retries);
    budgets.gate('50 concurrent PUTs: not applied', puts.sent - puts.applied, 2, 'PUTs');
    budgets.gate('50 concurrent PUTs: lost updates', puts.lostUpdates, 0, 'updates');
    budgets.show(`20 concurrent adds of ${adds.recipients} recipients: answers`, `${adds.ok} × 200`);
    budgets.gate('20 concurrent adds: failed answers', adds.sent - adds.ok, 0, 'answers');
    budgets.show(
      '20 concurrent adds: created claims per recipient',
      `${Math.min(...claims)}–${Math.max(...claims)}`,
    );
    budgets.gate(
      '20 concurrent adds: recipients not claimed created exactly once',
      claims.filter((c) => c !== 1).length,
      0,
      'recipients',
    );
    budgets.show(
      `20 concurrent adds: embed users created for ${adds.newEmbedUsers} new`,
      adds.embedUsersCreated,
    );
    budgets.gate(
      '20 concurrent adds: extra embed users',
      adds.embedUsersCreated - adds.newEmbedUsers,
      0,
      'users',
    );
    budgets.show(`20 concurrent adds: ids reserved for ${adds.newEmbedUsers} new users`, adds.idsReserved);
  }
  return { sizes: figures, concurrency };
}
