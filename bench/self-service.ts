import type { NotificationOwner } from '#lib/domain/notifications/notification';
import { scheduleSignature } from '#lib/domain/schedules/schedule';
import { planSchedule } from '#lib/domain/schedules/schedule-planning';
import { encodeEmbedUser } from '#lib/store/codecs/embed-users';
import { encodeNotification, encodeScheduleEntry } from '#lib/store/codecs/notifications';
import { encodeRecipient } from '#lib/store/codecs/recipients';
import { countKey, encodeLink, SELF_SERVICE_COUNT_ATTRIBUTE } from '#lib/store/codecs/self-service';
import type { Item } from '#lib/store/dynamo/items';
import { putItems } from '#test/support/stored-items';
import { describe, watch } from './dynamodb.ts';
import { type BenchKeys, notificationOf, SCALE_TENANTS, tokenOf } from './fixture.ts';
import { type Bench, median, ms, section, timed } from './report.ts';
import type { Stack } from './stack.ts';

/**
 * A create of a self-service subscription costs what one user holds, not what their tenant holds: the
 * same create measured in a tenant of 100 subscriptions and in one of 100,000 (the smoke: 2,000),
 * written straight into the table as creates leave them, 4 per user; the measuring user holds 3.
 */

const [DEPLOYMENT, DASHBOARD] = [7, 71]; // ops-kpis, shared with the bench's tenants
const PER_USER = 4;
const MEASURING_USER_HOLDS = 3;
const MEASURING_USER = 'measuring@example.com';
/** Far above what the id counters reach in a run, apart per tenant. */
const FIRST_ID = { [SCALE_TENANTS.few]: 20_000_000, [SCALE_TENANTS.many]: 21_000_000 };
/** Subscriptions written per slice: memory holds one slice. */
const SLICE = 10_000;

const daily = { scheduleType: 'DAILY', hour: 9, timezone: 'Europe/Berlin', isEnabled: true } as const;
const body = { dashboardPublicId: 'ops-kpis', scheduleType: 'DAILY', hour: 9, timezone: 'Europe/Berlin' };

/** The items of a user's subscriptions: each notification, its schedule entry, link and recipient row; their count. */
function userItems(tenant: string, externalId: string, embedUserId: number, ids: number[]): Item[] {
  const owner: NotificationOwner & { type: 'EMBED_USER' } = {
    type: 'EMBED_USER',
    embedTenantName: tenant,
    externalId,
    embedUserId,
  };
  const recipient = {
    type: 'EMBED_USER',
    embedTenantName: tenant,
    normalizedExternalId: externalId,
    externalId,
    embedUserId,
    email: externalId,
    properties: {},
  } as const;
  const items: Item[] = [
    encodeEmbedUser({ embedTenantName: tenant, externalId, embedUserId, email: externalId }),
    { ...countKey(owner), entity: 'SELF_SERVICE_COUNT', [SELF_SERVICE_COUNT_ATTRIBUTE]: ids.length },
  ];
  const now = Date.now();
  for (const id of ids) {
    const notification = notificationOf(id, {
      deploymentId: DEPLOYMENT,
      dashboardId: DASHBOARD,
      ...daily,
      owner,
    });
    const schedule = { ...planSchedule(notification, now), signature: scheduleSignature(notification) };
    items.push(
      encodeNotification(notification),
      encodeScheduleEntry(notification, { ...schedule, scheduleVersion: 0 }),
      encodeLink(owner, DEPLOYMENT, id),
      encodeRecipient(notification, recipient),
    );
  }
  return items;
}

/** `count` subscriptions of the tenant, `PER_USER` per user, the measuring user's `MEASURING_USER_HOLDS` among them. */
async function fill(tenant: string, count: number) {
  const first = FIRST_ID[tenant] ?? 0;
  const ids = (from: number, length: number) => Array.from({ length }, (_, k) => first + from + k);
  // The embed user ids: far from the sequence's, apart per tenant like the notification ids.
  await putItems(userItems(tenant, MEASURING_USER, first, ids(0, MEASURING_USER_HOLDS)));
  for (let from = MEASURING_USER_HOLDS; from < count; from += SLICE) {
    const items: Item[] = [];
    for (let at = from; at < Math.min(from + SLICE, count); at += PER_USER) {
      const held = ids(at, Math.min(PER_USER, count - at));
      items.push(...userItems(tenant, `holder-${at}@example.com`, first + at, held));
    }
    await putItems(items);
  }
}

/** The measuring user's create in a tenant of `count` (filled first), and its removal after. */
async function creator(stack: Stack, keys: BenchKeys, tenant: string, count: number) {
  await fill(tenant, count);
  const authorization = `Bearer ${tokenOf(keys, 'embed', { tenant, sub: MEASURING_USER })}`;
  const create = async () => {
    const reply = await stack.request('POST', '/v1/embed/notifications', { authorization, body });
    if (reply.status !== 201)
      throw new Error(`create in ${tenant}: ${reply.status} ${reply.text.slice(0, 200)}`);
    return reply.body as { id: number };
  };
  // Deleted again, so that the user keeps holding 3 and each create meets the same state.
  const remove = ({ id }: { id: number }) =>
    stack.call('DELETE', `/v1/deployments/${DEPLOYMENT}/notifications/${id}`, 204);
  // The token verified and the tenant's keys read: not what is measured.
  await remove(await create());
  const { result, work } = await watch(create);
  await remove(result);
  return { count, work, create, remove, times: [] as number[] };
}

async function measure(bench: Bench, stack: Stack, keys: BenchKeys, many: number) {
  const runs = bench.smoke ? 1 : 20;
  const few = await creator(stack, keys, SCALE_TENANTS.few, 100);
  const lots = await creator(stack, keys, SCALE_TENANTS.many, many);
  // Run by run, one size then the other: a burst of load hits both alike.
  for (let run = 0; run < runs; run++)
    for (const c of run % 2 === 0 ? [few, lots] : [lots, few]) {
      const { result, ms: elapsed } = await timed(c.create);
      c.times.push(elapsed);
      await c.remove(result);
    }
  for (const { count, work, times } of [few, lots]) {
    const { show } = bench.figures.about(`create in a tenant of ${count}`);
    show('DynamoDB requests', work.requests);
    show('by operation', describe(work.byOperation));
    show('read units', work.readUnits);
    show('write units', work.writeUnits);
    show(`time median (${runs})`, ms(median(times)));
  }
  const { gate } = bench.figures.about(`create at ${many} against 100`);
  gate('requests more', lots.work.requests - few.work.requests, 0, 'requests');
  gate('read units more', lots.work.readUnits - few.work.readUnits, 0, 'RCU');
  gate('write units more', lots.work.writeUnits - few.work.writeUnits, 0, 'WCU');
}

export async function selfServiceSection(bench: Bench, stack: Stack, keys: BenchKeys) {
  const many = bench.smoke ? 2_000 : 100_000;
  const title = `Self-service: a subscription's create in a tenant of 100 and of ${many} subscriptions`;
  await section(bench, title, () => measure(bench, stack, keys, many));
}
