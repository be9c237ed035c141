import { BatchWriteItemCommand, CreateTableCommand, DeleteTableCommand } from '@aws-sdk/client-dynamodb';
import { chunk, inParallel } from '#lib/concurrency';
import { BATCH_WRITE_LIMIT } from '#lib/store/batch';
import { tableDefinition } from '#lib/store/table-definition';
import { billedWriteUnits, itemUnits, writeActions } from './billing.ts';
import { describe, watch } from './dynamodb.ts';
import { RECIPIENT_NOTIFICATION_IDS } from './fixture.ts';
import { type Bench, part, section } from './report.ts';
import type { Stack } from './stack.ts';
import { ms, round, type Summary, summarize, timed } from './stats.ts';

/**
 * Add-recipients at its limit: 1000 new embed recipients in one request, then the same request again,
 * which must find all 1000 unchanged and write nothing. Its floor: the items that request wrote,
 * written by the bare client in BatchWrite calls of 25, 4 in flight (lib/store/batch.ts's default),
 * into an empty table of the same shape, in the same run.
 */

const RECIPIENTS = 1000;

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

/**
 * `runs` times on a notification of its own: the request, its floor, the same request again. The DynamoDB
 * work is the first run's (the same every run); the times are medians.
 */
async function measure(bench: Bench, stack: Stack, runs: number) {
  const times: Record<'new' | 'replay' | 'bare', number[]> = { new: [], replay: [], bare: [] };
  for (let run = 1; run <= runs; run++) {
    const path = `/v1/deployments/7/notifications/${RECIPIENT_NOTIFICATION_IDS[run - 1]}/recipients`;
    const recipients = Array.from({ length: RECIPIENTS }, (_, i) => `run${run}-user-${i + 1}@example.com`);
    const body = { recipients: recipients.map((externalId) => ({ embedTenantName: 'acme', externalId })) };
    const send = async (expected: 'createdRecipients' | 'unchangedRecipients') => {
      const { result: reply, ms } = await timed(() => stack.call('POST', path, 200, body));
      if (reply.body[expected]?.length !== RECIPIENTS)
        throw new Error(`POST ${path}: not ${RECIPIENTS} ${expected}`);
      return ms;
    };
    const added = await watch(() => send('createdRecipients'));
    const items = writeActions(added.calls).flatMap((a) => (a.item ? [a.item] : []));
    const bare = await bareWrite(stack, items, `${process.env.TABLE_NAME}-bare-${run}`);
    const again = await watch(() => send('unchangedRecipients'));
    times.new.push(added.result);
    times.bare.push(bare.ms);
    times.replay.push(again.result);
    if (run > 1) continue;
    const created = bench.figures.about(`add-recipients ${RECIPIENTS} new`);
    created.gate('DynamoDB requests', added.work.requests, 60, 'requests');
    created.show('by operation', describe(added.work.byOperation));
    created.show('write requests', added.work.writeRequests);
    created.show('write units billed (estimate)', billedWriteUnits(added.calls), 'WCU');
    const floor = bench.figures.about(
      `floor: its ${items.length} items, bare BatchWrite (25 per call, 4 in flight)`,
    );
    floor.show('requests', bare.requests);
    floor.show(
      'write units billed (estimate)',
      items.reduce((sum, item) => sum + itemUnits(item), 0),
      'WCU',
    );
    const replay = bench.figures.about('add-recipients replay');
    replay.gate('DynamoDB requests', again.work.requests, 13, 'requests');
    replay.show('by operation', describe(again.work.byOperation));
    replay.gate('write requests', again.work.writeRequests, 0, 'requests');
    replay.gate('write units', again.work.writeUnits, 0, 'WCU');
  }
  return [times.new, times.bare, times.replay].map(summarize) as [Summary, Summary, Summary];
}

export async function addRecipientsSection(bench: Bench, stack: Stack, runs: number) {
  section(
    bench,
    `Add recipients: ${RECIPIENTS} new embed recipients, then the same again (medians of ${runs})`,
  );
  const medians = await part(bench, `add-recipients ${RECIPIENTS}`, () => measure(bench, stack, runs));
  if (!medians) return;
  const [newMs, bareMs, replayMs] = medians;
  bench.figures.show(`add-recipients ${RECIPIENTS} new: time median`, ms(newMs.median));
  bench.figures.timing(
    `add-recipients ${RECIPIENTS} new: time / bare BatchWrite`,
    round(newMs.median / bareMs.median, 3),
    1.5,
  );
  bench.figures.show('floor, bare BatchWrite: time median', ms(bareMs.median));
  bench.figures.show('add-recipients replay: time median', ms(replayMs.median));
}
