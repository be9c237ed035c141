import { BatchWriteItemCommand, CreateTableCommand, DeleteTableCommand } from '@aws-sdk/client-dynamodb';
import { BATCH_WRITE_LIMIT, chunk, inParallel } from '#lib/store/batch';
import { tableDefinition } from '#lib/store/table-definition';
import { billedWriteUnits, itemUnits, writeActions } from './billing.ts';
import { describe, watch } from './dynamodb.ts';
import { ADMIN, RECIPIENT_NOTIFICATION_IDS } from './fixture.ts';
import { type Bench, part, section } from './report.ts';
import { expectStatus, type Stack } from './stack.ts';
import { ms, round, type Summary, summarize } from './stats.ts';

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

async function measure(stack: Stack, runs: number) {
  const samples: Record<'new' | 'replay' | 'bare', number[]> = { new: [], replay: [], bare: [] };
  const figures = [];
  for (let run = 1; run <= runs; run++) {
    const path = `/v1/deployments/7/notifications/${RECIPIENT_NOTIFICATION_IDS[run - 1]}/recipients`;
    const externalId = (i: number) => `run${run}-user-${i + 1}@example.com`;
    const recipients = Array.from({ length: RECIPIENTS }, (_, i) => ({
      embedTenantName: 'acme',
      externalId: externalId(i),
    }));
    const send = async (expected: 'createdRecipients' | 'unchangedRecipients') => {
      const started = performance.now();
      const reply = await stack.request('POST', path, { authorization: ADMIN, body: { recipients } });
      const elapsed = performance.now() - started;
      expectStatus(reply, 200, `POST ${path}`);
      if (reply.body[expected]?.length !== RECIPIENTS)
        throw new Error(`POST ${path}: not ${RECIPIENTS} ${expected}`);
      return elapsed;
    };
    const added = await watch(() => send('createdRecipients'));
    const items = writeActions(added.calls).flatMap((a) => (a.item ? [a.item] : []));
    const bare = await bareWrite(stack, items, `${process.env.TABLE_NAME}-bare-${run}`);
    const again = await watch(() => send('unchangedRecipients'));
    samples.new.push(added.result);
    samples.bare.push(bare.ms);
    samples.replay.push(again.result);
    const bareBilled = items.reduce((sum, item) => sum + itemUnits(item), 0);
    figures.push({
      added: added.work,
      billed: billedWriteUnits(added.calls),
      items: items.length,
      bare,
      bareBilled,
      again: again.work,
    });
  }
  const [first] = figures;
  if (!first) throw new Error('No run of add-recipients');
  const [newMs, bareMs, replayMs] = [samples.new, samples.bare, samples.replay].map(summarize) as Summary[];
  return { ...first, newMs, bareMs, replayMs };
}

export async function addRecipientsSection(bench: Bench, stack: Stack, runs: number) {
  section(
    bench,
    `Add recipients: ${RECIPIENTS} new embed recipients, then the same request again (medians of ${runs})`,
  );
  const a = await part(bench, `add-recipients ${RECIPIENTS}`, () => measure(stack, runs));
  if (!a?.newMs || !a.bareMs || !a.replayMs) return;
  const added = bench.budgets.about(`add-recipients ${RECIPIENTS} new`);
  added.gate('DynamoDB requests', a.added.requests, 60, 'requests');
  added.show('by operation', describe(a.added.byOperation));
  added.show('write requests', a.added.writeRequests);
  added.show('write units billed (estimate)', a.billed, 'WCU');
  added.show('time median', ms(a.newMs.median));
  added.timing('time / bare BatchWrite', round(a.newMs.median / a.bareMs.median, 3), 1.5);
  const floor = bench.budgets.about(
    `floor: its ${a.items} items, bare BatchWrite (25 per call, 4 in flight)`,
  );
  floor.show('requests', a.bare.requests);
  floor.show('write units billed (estimate)', a.bareBilled, 'WCU');
  floor.show('time median', ms(a.bareMs.median));
  const replay = bench.budgets.about('add-recipients replay');
  replay.gate('DynamoDB requests', a.again.requests, 13, 'requests');
  replay.show('by operation', describe(a.again.byOperation));
  replay.gate('write requests', a.again.writeRequests, 0, 'requests');
  replay.gate('write units', a.again.writeUnits, 0, 'WCU');
  replay.show('time median', ms(a.replayMs.median));
}
