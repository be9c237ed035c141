import { BatchWriteItemCommand, CreateTableCommand, DeleteTableCommand } from '@aws-sdk/client-dynamodb';
import { BATCH_WRITE_LIMIT, chunk, inParallel } from '#lib/store/batch';
import { tableDefinition } from '#lib/store/table-definition';
import { billedWriteUnits, itemUnits, writeActions } from './billing.ts';
import {
  ADD_RECIPIENTS_NEW_REQUESTS,
  ADD_RECIPIENTS_RATIO,
  ADD_RECIPIENTS_REPLAY_REQUESTS,
} from './budgets.ts';
import { type DynamoWork, describe, watch } from './dynamodb.ts';
import { ADMIN, RECIPIENT_NOTIFICATION_IDS } from './fixture.ts';
import { type Bench, part, section } from './report.ts';
import { expectStatus, type Stack } from './stack.ts';
import { ms, round, summarize } from './stats.ts';

/**
 * Add-recipients at its limit: 1000 new embed recipients in one request, then the same request again,
 * which must find all 1000 unchanged and write nothing. Its floor: the items that request wrote,
 * written by the bare client in BatchWrite calls of 25, 4 in flight (lib/store/batch.ts's default),
 * into an empty table of the same shape, in the same run.
 */

const RECIPIENTS = 1000;

async function bareWrite(stack: Stack, items: Record<string, unknown>[], run: number) {
  const table = `${process.env.TABLE_NAME}-bare-${run}`;
  await stack.bareClient.send(new CreateTableCommand(tableDefinition(table)));
  let requests = 0;
  const started = performance.now();
  try {
    await inParallel(chunk(items, BATCH_WRITE_LIMIT), 4, async (slice) => {
      let pending = slice.map((Item) => ({ PutRequest: { Item } }));
      for (; pending.length > 0; requests++) {
        const { UnprocessedItems } = await stack.bareClient.send(
          new BatchWriteItemCommand({ RequestItems: { [table]: pending } as never }),
        );
        pending = (UnprocessedItems?.[table] ?? []) as typeof pending;
      }
    });
    return { requests, ms: performance.now() - started };
  } finally {
    await stack.bareClient.send(new DeleteTableCommand({ TableName: table }));
  }
}

async function measure(stack: Stack, runs: number) {
  const samples = { new: [] as number[], replay: [] as number[], bare: [] as number[] };
  let first:
    | {
        newRequest: DynamoWork;
        replay: DynamoWork;
        items: number;
        billed: number;
        bareBilled: number;
        bareRequests: number;
      }
    | undefined;
  for (let run = 0; run < runs; run++) {
    const path = `/v1/deployments/7/notifications/${RECIPIENT_NOTIFICATION_IDS[run]}/recipients`;
    const body = {
      recipients: Array.from({ length: RECIPIENTS }, (_, i) => ({
        embedTenantName: 'acme',
        externalId: `run${run + 1}-user-${i + 1}@example.com`,
      })),
    };
    const send = async (expected: 'createdRecipients' | 'unchangedRecipients') => {
      const started = performance.now();
      const reply = await stack.request('POST', path, { authorization: ADMIN, body });
      const elapsed = performance.now() - started;
      expectStatus(reply, 200, `POST ${path}`);
      if (reply.body[expected]?.length !== RECIPIENTS)
        throw new Error(`POST ${path}: expected ${RECIPIENTS} ${expected}, got ${reply.text.slice(0, 200)}`);
      return elapsed;
    };
    const added = await watch(() => send('createdRecipients'));
    const items = writeActions(added.calls).flatMap((a) => (a.item ? [a.item] : []));
    const bare = await bareWrite(stack, items, run + 1);
    const again = await watch(() => send('unchangedRecipients'));
    samples.new.push(added.result);
    samples.bare.push(bare.ms);
    samples.replay.push(again.result);
    first ??= {
      newRequest: added.work,
      replay: again.work,
      items: items.length,
      billed: billedWriteUnits(added.calls),
      bareBilled: items.reduce((sum, item) => sum + itemUnits(item), 0),
      bareRequests: bare.requests,
    };
  }
  if (!first) throw new Error('No run of add-recipients');
  return {
    ...first,
    newMs: summarize(samples.new),
    replayMs: summarize(samples.replay),
    bareMs: summarize(samples.bare),
  };
}

export async function addRecipientsSection(bench: Bench, stack: Stack, runs: number) {
  const n = RECIPIENTS;
  section(
    bench,
    `Add recipients: ${n} new embed recipients, then the same request again (medians over ${runs} runs)`,
  );
  const a = await part(bench, `add-recipients ${n}`, () => measure(stack, runs));
  if (!a) return undefined;
  const { budgets } = bench;
  budgets.gate(
    `add-recipients ${n} new: DynamoDB requests`,
    a.newRequest.requests,
    ADD_RECIPIENTS_NEW_REQUESTS,
    'requests',
  );
  budgets.show(`add-recipients ${n} new: by operation`, describe(a.newRequest.byOperation));
  budgets.show(`add-recipients ${n} new: write requests`, a.newRequest.writeRequests);
  budgets.show(`add-recipients ${n} new: write units billed (estimate)`, a.billed, 'WCU');
  budgets.show(`add-recipients ${n} new: time median`, ms(a.newMs.median));
  budgets.timing(
    `add-recipients ${n} new: time / bare BatchWrite`,
    round(a.newMs.median / a.bareMs.median, 3),
    ADD_RECIPIENTS_RATIO,
  );
  const floor = `floor: its ${a.items} items, bare BatchWrite (25 per call, 4 in flight)`;
  budgets.show(`${floor}: requests`, a.bareRequests);
  budgets.show(`${floor}: write units billed (estimate)`, a.bareBilled, 'WCU');
  budgets.show(`${floor}: time median`, ms(a.bareMs.median));
  budgets.gate(
    'add-recipients replay: DynamoDB requests',
    a.replay.requests,
    ADD_RECIPIENTS_REPLAY_REQUESTS,
    'requests',
  );
  budgets.show('add-recipients replay: by operation', describe(a.replay.byOperation));
  budgets.gate('add-recipients replay: write requests', a.replay.writeRequests, 0, 'requests');
  budgets.gate('add-recipients replay: write units', a.replay.writeUnits, 0, 'WCU');
  budgets.show('add-recipients replay: time median', ms(a.replayMs.median));
  return a;
}
