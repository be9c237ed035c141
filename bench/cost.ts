import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { normalizeExternalId } from '#lib/domain/recipients-input';
import { batchGetAll } from '#lib/store/batch';
import { documentClient, tableName } from '#lib/store/client';
import { encodeRecipient } from '#lib/store/codecs/recipients';
import * as keys from '#lib/store/item-keys';
import { type DynamoWork, describe, watch } from './dynamodb.ts';
import {
  ADMIN,
  CONCURRENCY_NOTIFICATION_IDS,
  embedRecipient,
  putItems,
  SCALE_NOTIFICATION_IDS,
} from './fixture.ts';
import { type Bench, part, section } from './report.ts';
import type { Stack } from './stack.ts';
import { ms, summarize, timed } from './stats.ts';

/**
 * What a request costs must follow the request, not what is stored: adding 1 and 10 recipients to
 * notifications that already hold 0 to 50,000 recipients, with requests and read units compared across
 * sizes. And answers that stay true under concurrency: 50 concurrent single-field PUTs on one
 * notification, 20 concurrent identical adds of the same 7 recipients.
 */

const [PUT_TARGET, ADD_TARGET, ELSEWHERE] = CONCURRENCY_NOTIFICATION_IDS;
const notification = (id: number) => `/v1/deployments/7/notifications/${id}`;
const embed = (externalId: string) => ({ embedTenantName: 'acme', externalId });
const add = (stack: Stack, id: number, recipients: object[]) =>
  stack.call('POST', `${notification(id)}/recipients`, 200, { recipients });

async function measureSizes(stack: Stack, sizes: readonly number[], runs: number) {
  // The caller's lookup and the function's first load stay out of the figures.
  await add(stack, ELSEWHERE, [embed('warm-up@example.com')]);
  const properties = (i: number) => ({
    groups: ['viewers'],
    securityContext: { region: 'emea', team: `team-${i % 31}` },
  });
  const cases: { stored: number; adding: number; id: number; times: number[]; work?: DynamoWork }[] = [];
  for (const [index, stored] of sizes.entries()) {
    const parent = { deploymentId: 7, id: SCALE_NOTIFICATION_IDS[index] as number, dashboardId: 70 };
    const row = (i: number) => encodeRecipient(parent, embedRecipient('stored', i, properties(i)));
    await putItems(Array.from({ length: stored }, (_, i) => row(i)));
    for (const adding of [1, 10]) cases.push({ stored, adding, id: parent.id, times: [] });
  }
  // Run by run, every case in turn, starting one further each run: no size is favoured by its place.
  for (let run = 0; run < runs; run++)
    for (const c of [...cases.slice(run % cases.length), ...cases.slice(0, run % cases.length)]) {
      const ids = Array.from(
        { length: c.adding },
        (_, i) => `added-${c.stored}-${c.adding}-${run}-${i}@example.com`,
      );
      const send = () => timed(() => add(stack, c.id, ids.map(embed)));
      // Metered once; the meter's own work stays out of the timed runs.
      if (run === 0) c.work = (await watch(send)).work;
      else c.times.push((await send()).ms);
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
    .Item ?? {};

/**
 * How many of these embed users exist, read by their keys: an embed user is keyed by tenant and
 * externalId, so no duplicate can hide elsewhere (a table Scan here took tens of minutes once the full
 * bench had filled the table: DynamoDB Local's Scan slows with the square of the table).
 */
async function embedUsersStored(recipients: object[]) {
  const ids = recipients.flatMap((r) =>
    'externalId' in r ? [normalizeExternalId(String(r.externalId))] : [],
  );
  return (await batchGetAll(ids.map((id) => keys.embedUser('acme', id)))).length;
}

async function concurrency(bench: Bench, stack: Stack) {
  // 50 PUTs, each setting one field (5 fields, 10 times each), all at once.
  const fields = [
    (i: number) => ({ minute: i }),
    (i: number) => ({ hour: i % 24 }),
    (i: number) => ({ isEnabled: i % 2 === 0 }),
    (i: number) => ({ notificationFormat: i % 2 === 0 ? 'pdf' : 'png' }),
    (i: number) => ({ timezone: i % 2 === 0 ? 'Asia/Tokyo' : 'UTC' }),
  ];
  const version = async () => Number((await stored(keys.notification(7, PUT_TARGET))).version ?? 0);
  const versionBefore = await version();
  const put = (i: number) =>
    stack.request('PUT', notification(PUT_TARGET), { authorization: ADMIN, body: fields[i % 5]?.(i) });
  const puts = await watch(() => Promise.all(Array.from({ length: 50 }, (_, i) => put(i))));
  const answered = (status: number) => puts.result.filter((reply) => reply.status === status).length;
  const p = bench.figures.about('50 concurrent PUTs');
  p.show('answers', `${answered(200)} × 200, ${answered(409)} × 409`);
  p.show('write retries', (puts.work.byOperation.UpdateItem ?? 0) - 50);
  p.gate('not applied', 50 - answered(200), 2, 'PUTs');
  // Every applied PUT moves the version by one: fewer moves than 200s means one overwrote another.
  p.gate('lost updates', answered(200) - ((await version()) - versionBefore), 0, 'updates');

  // 20 identical adds: 2 console users, 1 embed user that exists (recipient elsewhere), 4 new ones.
  const existing = embed('concurrent-existing@example.com');
  await add(stack, ELSEWHERE, [existing]);
  const news = [0, 1, 2, 3].map((i) => embed(`concurrent-${i}@example.com`));
  const recipients = [{ userId: 2 }, { email: 'dan@example.com' }, existing, ...news];
  const counter = async () => Number((await stored(keys.counter('embedUser'))).value ?? 0);
  const [usersBefore, counterBefore] = [await embedUsersStored(recipients), await counter()];
  const body = { recipients };
  const sent = () =>
    stack.request('POST', `${notification(ADD_TARGET)}/recipients`, { authorization: ADMIN, body });
  const ok = (await Promise.all(Array.from({ length: 20 }, sent))).filter((reply) => reply.status === 200);
  // Per recipient, how many answers reported it created.
  const identity = (item: Record<string, unknown>) =>
    String(item.type === 'USER' ? item.userId : item.externalId);
  const claims: Record<string, number> = {};
  for (const { body } of ok) {
    for (const item of [...body.createdRecipients, ...body.unchangedRecipients]) claims[identity(item)] ??= 0;
    for (const item of body.createdRecipients) claims[identity(item)] = (claims[identity(item)] ?? 0) + 1;
  }
  const created = Object.values(claims);
  const embedUsersCreated = (await embedUsersStored(recipients)) - usersBefore;
  const a = bench.figures.about('20 concurrent adds');
  a.gate('failed answers', 20 - ok.length, 0, 'answers');
  a.show('created claims per recipient', `${Math.min(...created)}–${Math.max(...created)}`);
  a.gate('recipients not claimed created exactly once', created.filter((n) => n !== 1).length, 0);
  a.show('embed users created for 4 new', embedUsersCreated);
  a.gate('extra embed users', embedUsersCreated - 4, 0, 'users');
  a.show('ids reserved for 4 new users', (await counter()) - counterBefore);
}

export async function costSection(bench: Bench, stack: Stack) {
  // The smoke's sizes: enough to show growth (a partition past one Query page), cheap to fill.
  const sizes = bench.smoke ? [0, 5_000] : [0, 1_000, 10_000, 50_000];
  const runs = bench.smoke ? 2 : 11;
  const title = `Add recipients at size: 1 and 10 new to notifications holding ${sizes.join(', ')}`;
  section(bench, `${title} (time: median of ${runs - 1})`, true);
  const figures = (await part(bench, 'cost at size', () => measureSizes(stack, sizes, runs))) ?? [];
  for (const s of figures) {
    const { show, gate, timing } = bench.figures.about(
      `add-recipients ${s.adding} new at ${s.stored} stored`,
    );
    show('requests', s.work.requests);
    show('by operation', describe(s.work.byOperation));
    show('RCU', s.work.readUnits);
    show('time median', ms(s.ms.median));
    const empty = figures.find((f) => f.adding === s.adding && f.stored === 0);
    if (!empty || s === empty) continue;
    gate('DynamoDB requests', s.work.requests - empty.work.requests, 0, 'more than at 0');
    gate('read units', s.work.readUnits - empty.work.readUnits, 0, 'RCU more than at 0');
    timing('time / time at 0', s.ms.median / empty.ms.median, 1.2);
  }
  section(
    bench,
    'Concurrency: 50 concurrent single-field PUTs on one notification; 20 concurrent identical adds',
  );
  await part(bench, 'concurrency', () => concurrency(bench, stack));
}
