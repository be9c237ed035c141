import { BatchWriteItemCommand, CreateTableCommand, DeleteTableCommand } from '@aws-sdk/client-dynamodb';
import { chunk, inParallel } from '#lib/concurrency';
import { BATCH_WRITE_LIMIT } from '#lib/store/batch';
import { documentClient } from '#lib/store/client';
import { tableDefinition } from '#lib/store/table-definition';
import { billedWriteUnits, itemBytes } from './billing.ts';
import { ADMIN_KEY, RECIPIENT_NOTIFICATION_IDS } from './fixture.ts';
import type { LocalStack } from './local-stack.ts';
import { type DynamoWork, expectStatus, metered, pathOf, routeOf } from './per-request.ts';
import { type RecordedCall, recordDynamoDb, replay } from './recorder.ts';
import { type Summary, summarize } from './stats.ts';

/**
 * Add-recipients at its limit: 1000 new embed recipients in one request, then the same
 * request again, which must find all 1000 unchanged and write nothing. Its floor: the items that
 * request wrote, written by a bare client in BatchWrite calls of 25 into an empty table of the same
 * shape, with the concurrency lib/store/batch.ts uses, in the same run. A second reference: the
 * request's own write calls (transactions included) sent again by the bare client, which shows what
 * the choice of calls costs apart from our code around them.
 */

const RECIPIENTS = 1000;
/** In flight at once for the bare writes: lib/store/batch.ts's default. */
const BARE_CONCURRENCY = 4;

export interface AddRecipientsFigures {
  recipients: number;
  newRequest: DynamoWork;
  replay: DynamoWork;
  /** Items the new request wrote, whatever call wrote them. */
  itemsWritten: number;
  /** Write units DynamoDB would bill (see billing.ts), for the request and for the bare BatchWrites. */
  billedWriteUnits: number;
  bareBilledWriteUnits: number;
  newMs: Summary;
  replayMs: Summary;
  bareWriteMs: Summary;
  bareWriteRequests: number;
  /** The request's own write calls, sent by the bare client with the same overlap. */
  bareSameCallsMs: Summary;
  sameCalls: string[];
  /** Of the new request's time: with at least one DynamoDB call in flight, and the rest (our code, HTTP). */
  inCallsMs: Summary;
  outsideCallsMs: Summary;
  /** From the first to the end of the last read call, and the same for the write calls. */
  readsMs: Summary;
  writesMs: Summary;
}

const span = (calls: readonly RecordedCall[]) =>
  calls.length === 0
    ? 0
    : Math.max(...calls.map((call) => call.endedAt)) - Math.min(...calls.map((call) => call.startedAt));

/** How long at least one of the calls was in flight (the union of their intervals). */
function busyTime(calls: readonly RecordedCall[]): number {
  const intervals = calls.map((call) => [call.startedAt, call.endedAt] as const).sort((a, b) => a[0] - b[0]);
  let busy = 0;
  let [start, end] = intervals[0] ?? [0, 0];
  for (const [from, to] of intervals.slice(1)) {
    if (from > end) {
      busy += end - start;
      start = from;
    }
    end = Math.max(end, to);
  }
  return busy + end - start;
}

const WRITES = new Set(['PutItem', 'UpdateItem', 'DeleteItem', 'BatchWriteItem', 'TransactWriteItems']);

/** The same call aimed at another table. */
function retarget(input: Record<string, unknown>, from: string, to: string): Record<string, unknown> {
  return JSON.parse(JSON.stringify(input), (key, value) => {
    if (key === 'TableName' && value === from) return to;
    if (key === 'RequestItems' && value && typeof value === 'object' && from in value) {
      const { [from]: requests, ...rest } = value as Record<string, unknown>;
      return { ...rest, [to]: requests };
    }
    return value;
  });
}

async function withEmptyTable<T>(
  stack: LocalStack,
  name: string,
  work: (table: string) => Promise<T>,
): Promise<T> {
  await stack.bareClient.send(new CreateTableCommand(tableDefinition(name)));
  try {
    return await work(name);
  } finally {
    await stack.bareClient.send(new DeleteTableCommand({ TableName: name }));
  }
}

type Marshalled = Record<string, unknown>;

/** Every item a recorded call puts, from BatchWriteItem, TransactWriteItems or PutItem. */
function itemsPut(calls: readonly RecordedCall[]): Marshalled[] {
  return calls.flatMap((call) => {
    const input = call.input as {
      RequestItems?: Record<string, { PutRequest?: { Item: Marshalled } }[]>;
      TransactItems?: { Put?: { Item: Marshalled } }[];
      Item?: Marshalled;
    };
    if (call.operation === 'BatchWriteItem')
      return Object.values(input.RequestItems ?? {}).flatMap((requests) =>
        requests.flatMap((request) => (request.PutRequest ? [request.PutRequest.Item] : [])),
      );
    if (call.operation === 'TransactWriteItems')
      return (input.TransactItems ?? []).flatMap((item) => (item.Put ? [item.Put.Item] : []));
    if (call.operation === 'PutItem' && input.Item) return [input.Item];
    return [];
  });
}

async function bareWrite(stack: LocalStack, items: Marshalled[], table: string): Promise<number> {
  let requests = 0;
  await inParallel(chunk(items, BATCH_WRITE_LIMIT), BARE_CONCURRENCY, async (slice) => {
    let pending = slice.map((Item) => ({ PutRequest: { Item } }));
    while (pending.length > 0) {
      requests++;
      const result = await stack.bareClient.send(
        new BatchWriteItemCommand({ RequestItems: { [table]: pending } as never }),
      );
      pending = (result.UnprocessedItems?.[table] ?? []) as typeof pending;
    }
  });
  return requests;
}

export async function measureAddRecipients(stack: LocalStack, runs: number): Promise<AddRecipientsFigures> {
  const route = routeOf('add-recipients');
  const authorization = `Bearer ${ADMIN_KEY}`;
  const newMs: number[] = [];
  const replayMs: number[] = [];
  const bareWriteMs: number[] = [];
  const bareSameCallsMs: number[] = [];
  const inCallsMs: number[] = [];
  const readsMs: number[] = [];
  const writesMs: number[] = [];
  const outsideCallsMs: number[] = [];
  let sameCalls: string[] = [];
  let billed = 0;
  let bareBilled = 0;
  let newRequest: DynamoWork | undefined;
  let replayWork: DynamoWork | undefined;
  let itemsWritten = 0;
  let bareWriteRequests = 0;

  const recorder = recordDynamoDb(documentClient());
  try {
    for (let run = 0; run < runs; run++) {
      const notificationId = RECIPIENT_NOTIFICATION_IDS[run];
      if (notificationId === undefined)
        throw new Error('The bench fixture has too few recipient notifications');
      const path = pathOf(route, { deploymentId: '7', id: String(notificationId) });
      const body = {
        recipients: Array.from({ length: RECIPIENTS }, (_, i) => ({
          embedTenantName: 'acme',
          externalId: `run${run + 1}-user-${i + 1}@example.com`,
        })),
      };
      const send = async (expected: 'createdRecipients' | 'unchangedRecipients') => {
        const t0 = performance.now();
        const reply = await stack.request(route.method, path, { authorization, body });
        const t1 = performance.now();
        expectStatus(reply, 200, `${route.method} ${path}`);
        const buckets = JSON.parse(reply.text) as Record<string, unknown[]>;
        if (buckets[expected]?.length !== RECIPIENTS)
          throw new Error(
            `${route.method} ${path}: expected ${RECIPIENTS} ${expected}, got ${reply.text.slice(0, 200)}`,
          );
        return { t0, t1 };
      };

      // Counted on the first run only: the meter's own work stays out of the later runs' times.
      const recordNew = () => recorder.record(() => send('createdRecipients'));
      const first = run === 0 ? await metered(recordNew) : { result: await recordNew(), work: undefined };
      const { t0: started, t1: ended } = first.result.result;
      newMs.push(ended - started);
      const inCalls = busyTime(first.result.calls);
      inCallsMs.push(inCalls);
      outsideCallsMs.push(ended - started - inCalls);
      readsMs.push(span(first.result.calls.filter((call) => !WRITES.has(call.operation))));
      writesMs.push(span(first.result.calls.filter((call) => WRITES.has(call.operation))));
      newRequest ??= first.work;
      const items = itemsPut(first.result.calls);
      itemsWritten = items.length;
      billed = billedWriteUnits(first.result.calls);
      bareBilled = items.reduce((sum, item) => sum + Math.max(1, Math.ceil(itemBytes(item) / 1024)), 0);

      const table = process.env.TABLE_NAME as string;
      const writeCalls = first.result.calls.filter((call) => WRITES.has(call.operation));
      sameCalls = writeCalls.map((call) => call.operation);
      const floors = [
        () =>
          withEmptyTable(stack, `${table}-bare-${run + 1}`, async (bareTable) => {
            const t0 = performance.now();
            bareWriteRequests = await bareWrite(stack, items, bareTable);
            bareWriteMs.push(performance.now() - t0);
          }),
        () =>
          withEmptyTable(stack, `${table}-same-${run + 1}`, async (bareTable) => {
            const t0 = performance.now();
            await replay(stack.bareClient, writeCalls, (call) => retarget(call.input, table, bareTable));
            bareSameCallsMs.push(performance.now() - t0);
          }),
      ];
      // Taking turns at going first, so that neither floor always meets the engine just after the request.
      for (const floor of run % 2 === 0 ? floors : floors.reverse()) await floor();

      const again =
        run === 0
          ? await metered(() => send('unchangedRecipients'))
          : { result: await send('unchangedRecipients'), work: undefined };
      replayMs.push(again.result.t1 - again.result.t0);
      replayWork ??= again.work;
    }
  } finally {
    recorder.detach();
  }
  return {
    recipients: RECIPIENTS,
    newRequest: newRequest as DynamoWork,
    replay: replayWork as DynamoWork,
    itemsWritten,
    newMs: summarize(newMs),
    replayMs: summarize(replayMs),
    bareWriteMs: summarize(bareWriteMs),
    bareWriteRequests,
    billedWriteUnits: billed,
    bareBilledWriteUnits: bareBilled,
    bareSameCallsMs: summarize(bareSameCallsMs),
    sameCalls,
    inCallsMs: summarize(inCallsMs),
    readsMs: summarize(readsMs),
    writesMs: summarize(writesMs),
    outsideCallsMs: summarize(outsideCallsMs),
  };
}
