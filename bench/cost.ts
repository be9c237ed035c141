import { BatchWriteItemCommand, CreateTableCommand, DeleteTableCommand } from '@aws-sdk/client-dynamodb';
import { chunk, inParallel } from '#lib/concurrency';
import { normalizeExternalId } from '#lib/domain/recipients/recipients-input';
import { encodeRecipient } from '#lib/store/codecs/recipients';
import { BATCH_WRITE_LIMIT, batchGetAll } from '#lib/store/dynamo/batch';
import * as keys from '#lib/store/dynamo/item-keys';
import { getItem } from '#lib/store/dynamo/items';
import { tableDefinition } from '#lib/store/dynamo/table-definition';
import { singleFieldUpdates } from '#test/support/single-field-updates';
import { embedRecipient, putItems } from '#test/support/stored-items';
import { describe, watch, writes } from './dynamodb.ts';
import { ADMIN } from './fixture.ts';
import { type Bench, median, ms, round, section, timed } from './report.ts';
import type { Stack } from './stack.ts';

/**
 * Adding recipients costs what the request asks, not what is stored: 1000 new against the floor of writing
 * their items, the same again (nothing to write), 1 and 10 new beside 0 to 50,000 stored. And answers that
 * stay true under concurrency. The fixture's notifications 9000 onwards serve (BENCHMARKS.md, "Cost").
 */

const notification = (id: number) => `/v1/deployments/7/notifications/${id}`;
const embed = (externalId: string) => ({ embedTenantName: 'acme', externalId });
const add = (stack: Stack, id: number, recipients: object[]) =>
  stack.call('POST', `${notification(id)}/recipients`, 200, { recipients });

/** The floor: `items` written by the bare client in BatchWrite calls of 25, 4 in flight, into an empty table. */
async function bareWrite(stack: Stack, items: Record<string, unknown>[], table: string) {
  await stack.bareClient.send(new CreateTableCommand(tableDefinition(table)));
  const started = performance.now();
  let requests = 0;
  await inParallel(chunk(items, BATCH_WRITE_LIMIT), 4, async (slice) => {
    for (let pending = slice.map((Item) => ({ PutRequest: { Item } })); pending.length > 0; requests++) {
      const command = new BatchWriteItemCommand({ RequestItems: { [table]: pending } as never });
      pending = ((await stack.bareClient.send(command)).UnprocessedItems?.[table] ?? []) as typeof pending;
    }
  });
  const elapsed = performance.now() - started;
  await stack.bareClient.send(new DeleteTableCommand({ TableName: table }));
  return { requests, ms: elapsed };
}

/** `runs` times on a notification of its own: 1000 new, the floor, the same again. Work of the first run, median times. */
async function atTheLimit(bench: Bench, stack: Stack, runs: number) {
  const times: number[][] = [[], [], []];
  for (let run = 1; run <= runs; run++) {
    const path = `${notification(8999 + run)}/recipients`;
    const recipients = Array.from({ length: 1000 }, (_, i) => embed(`run${run}-user-${i + 1}@example.com`));
    const send = async (expected: 'createdRecipients' | 'unchangedRecipients') => {
      const { result: reply, ms } = await timed(() => stack.call('POST', path, 200, { recipients }));
      if (reply.body[expected]?.length !== 1000) throw new Error(`POST ${path}: not 1000 ${expected}`);
      return ms;
    };
    const added = await watch(() => send('createdRecipients'));
    const items = writes(added.calls).flatMap((w) => (w.item ? [w.item] : []));
    const bare = await bareWrite(stack, items, `${process.env.TABLE_NAME}-bare-${run}`);
    const again = await watch(() => send('unchangedRecipients'));
    for (const [k, ms] of [added.result, bare.ms, again.result].entries()) times[k]?.push(ms);
    if (run > 1) continue;
    const created = bench.figures.about('add-recipients 1000 new');
    created.gate('DynamoDB requests', added.work.requests, 60, 'requests');
    created.show('by operation', describe(added.work.byOperation));
    created.show('write requests', added.work.writeRequests);
    const floor = `floor: its ${items.length} items, bare BatchWrite (25 per call, 4 in flight)`;
    bench.figures.show(`${floor}: requests`, bare.requests);
    const replay = bench.figures.about('add-recipients replay');
    replay.gate('DynamoDB requests', again.work.requests, 13, 'requests');
    replay.show('by operation', describe(again.work.byOperation));
    replay.gate('write requests', again.work.writeRequests, 0, 'requests');
    replay.gate('write units', again.work.writeUnits, 0, 'WCU');
  }
  const [newMs = 0, bareMs = 0, replayMs = 0] = times.map(median);
  bench.figures.show('add-recipients 1000 new: time median', ms(newMs));
  bench.figures.timing('add-recipients 1000 new: time / bare BatchWrite', round(newMs / bareMs, 3), 1.5);
  bench.figures.show('floor, bare BatchWrite: time median', ms(bareMs));
  bench.figures.show('add-recipients replay: time median', ms(replayMs));
}

async function atSize(bench: Bench, stack: Stack, sizes: readonly number[], runs: number) {
  // The caller's lookup and the function's first load stay out of the figures.
  await add(stack, 9202, [embed('warm-up@example.com')]);
  const team = (i: number) => ({
    groups: ['viewers'],
    securityContext: { region: 'emea', team: `t${i % 31}` },
  });
  const cases = [];
  for (const [k, stored] of sizes.entries()) {
    const parent = { deploymentId: 7, id: 9100 + k, dashboardId: 70 };
    const row = (i: number) => encodeRecipient(parent, embedRecipient('stored', i, team(i)));
    await putItems(Array.from({ length: stored }, (_, i) => row(i)));
    for (const adding of [1, 10]) {
      const added = (run: number) => (_: unknown, i: number) =>
        embed(`added-${stored}-${adding}-${run}-${i}@x.example`);
      const send = (run: number) => add(stack, parent.id, Array.from({ length: adding }, added(run)));
      // Metered once; the meter's own work stays out of the timed runs.
      cases.push({ stored, adding, send, work: (await watch(() => send(0))).work, times: [] as number[] });
    }
  }
  // Run by run, every case in turn, starting one further each run: no size is favoured by its place.
  for (let run = 1; run < runs; run++)
    for (const c of [...cases.slice(run % cases.length), ...cases.slice(0, run % cases.length)])
      c.times.push((await timed(() => c.send(run))).ms);
  for (const c of cases) {
    const empty = cases.find((e) => e.adding === c.adding && e.stored === 0) ?? c;
    const { show, gate, timing } = bench.figures.about(
      `add-recipients ${c.adding} new at ${c.stored} stored`,
    );
    show('requests', c.work.requests);
    show('by operation', describe(c.work.byOperation));
    show('RCU', c.work.readUnits);
    show('time median', ms(median(c.times)));
    if (c === empty) continue;
    gate('DynamoDB requests', c.work.requests - empty.work.requests, 0, 'more than at 0');
    gate('read units', c.work.readUnits - empty.work.readUnits, 0, 'RCU more than at 0');
    timing('time / time at 0', median(c.times) / median(empty.times), 1.2);
  }
}

/**
 * How many of these embed users exist, read by their keys: an embed user is keyed by tenant and
 * externalId, so no duplicate can hide elsewhere (DynamoDB Local's Scan slows with the square of the table).
 */
async function embedUsersStored(recipients: object[]) {
  const ids = recipients.flatMap((r) =>
    'externalId' in r ? [normalizeExternalId(String(r.externalId))] : [],
  );
  return (await batchGetAll(ids.map((id) => keys.embedUser('acme', id)))).length;
}

async function concurrency(bench: Bench, stack: Stack) {
  // 50 PUTs on notification 9200, each setting one field (5 fields, 10 times each), all at once.
  const version = async () => Number((await getItem(keys.notification(7, 9200)))?.version ?? 0);
  const versionBefore = await version();
  const put = (body: unknown) => stack.request('PUT', notification(9200), { authorization: ADMIN, body });
  const puts = await watch(() => Promise.all(singleFieldUpdates(50).map(put)));
  const answered = (status: number) => puts.result.filter((reply) => reply.status === status).length;
  const p = bench.figures.about('50 concurrent PUTs');
  p.show('answers', `${answered(200)} × 200, ${answered(409)} × 409`);
  p.show('write retries', (puts.work.byOperation.UpdateItem ?? 0) - 50);
  p.gate('not applied', 50 - answered(200), 2, 'PUTs');
  // A PUT that changed something moves the version by one and records one `updated` event; one that
  // found its value already set changes nothing. Fewer moves than events means one overwrote another.
  const events = await stack.request('GET', `${notification(9200)}/events?first=200`, {
    authorization: ADMIN,
  });
  const updated = events.body.items.filter((event: { action: string }) => event.action === 'updated').length;
  p.show('changed something', `${updated} PUTs`);
  p.gate('lost updates', updated - ((await version()) - versionBefore), 0, 'updates');

  // 20 identical adds to 9201: 2 console users, 1 embed user that exists (recipient of 9202), 4 new ones.
  const existing = embed('concurrent-existing@example.com');
  await add(stack, 9202, [existing]);
  const news = [0, 1, 2, 3].map((i) => embed(`concurrent-${i}@example.com`));
  const recipients = [{ userId: 2 }, { email: 'dan@example.com' }, existing, ...news];
  const counter = async () => Number((await getItem(keys.counter('embedUser')))?.value ?? 0);
  const [usersBefore, counterBefore] = [await embedUsersStored(recipients), await counter()];
  const options = { authorization: ADMIN, body: { recipients } };
  const sent = () => stack.request('POST', `${notification(9201)}/recipients`, options);
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

export async function costSection(bench: Bench, stack: Stack, runs: number) {
  const title = `Add recipients: 1000 new embed recipients, then the same again (medians of ${runs})`;
  await section(bench, title, () => atTheLimit(bench, stack, runs));
  // The smoke's sizes: enough to show growth (a partition past one Query page), cheap to fill.
  const [sizes, sizeRuns] = bench.smoke ? [[0, 5_000], 2] : [[0, 1_000, 10_000, 50_000], 11];
  const sized = `Add recipients at size: 1 and 10 new to notifications holding ${sizes.join(', ')}`;
  await section(bench, `${sized} (time: median of ${sizeRuns - 1})`, () =>
    atSize(bench, stack, sizes, sizeRuns),
  );
  const concurrent =
    'Concurrency: 50 concurrent single-field PUTs on one notification; 20 concurrent identical adds';
  await section(bench, concurrent, () => concurrency(bench, stack));
}
