import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { normalizeExternalId } from '#lib/domain/recipients-input';
import { meterDynamoDb } from '#lib/local/dynamodb-meter';
import { batchGetAll, batchWriteAll } from '#lib/store/batch';
import { documentClient, tableName } from '#lib/store/client';
import { encodeRecipient } from '#lib/store/codecs/recipients';
import { keys } from '#lib/store/keys';
import { type Budget, COST_GROWTH, met, TIME_AT_SIZE_RATIO } from './budgets.ts';
import { ADMIN_KEY, CONCURRENCY_NOTIFICATION_IDS, SCALE_NOTIFICATION_IDS } from './fixture.ts';
import type { LocalStack, Reply } from './local-stack.ts';
import { type Bench, log, part, section } from './output.ts';
import { type DynamoWork, expectStatus, metered, pathOf, routeOf } from './per-request.ts';
import { type Summary, summarize } from './stats.ts';
import { ms, type Table, table, times } from './table.ts';

/**
 * What a request costs must follow the request, not what is stored: adding 1 and 10 recipients to
 * notifications that already hold 0 to 50,000 recipients, with requests and read units compared
 * across sizes. And answers that stay true under concurrency: 50 concurrent single-field PUTs on one
 * notification, 20 concurrent identical adds of the same 7 recipients.
 */

const SIZES = [0, 1_000, 10_000, 50_000];
/** The smoke's sizes: enough to show growth (a partition past one Query page), cheap to fill. */
const SMOKE_SIZES = [0, 5_000];
const BATCHES = [1, 10];
const FILL_CONCURRENCY = 8;

export interface SizeFigures {
  stored: number;
  adding: number;
  work: DynamoWork;
  ms: Summary;
}

export interface ConcurrencyFigures {
  puts: { sent: number; applied: number; conflicts: number; retries: number; lostUpdates: number };
  adds: {
    sent: number;
    ok: number;
    recipients: number;
    /** Per recipient, how many answers reported it created. */
    createdClaims: Record<string, number>;
    embedUsersCreated: number;
    newEmbedUsers: number;
    idsReserved: number;
  };
}

export interface CostResults {
  sizes: SizeFigures[];
  concurrency?: ConcurrencyFigures;
}

const route = routeOf('add-recipients');
const authorization = `Bearer ${ADMIN_KEY}`;
const recipientsPath = (id: number) => pathOf(route, { deploymentId: '7', id: String(id) });

/** `count` embed recipient rows written straight into the notification's partition, as add-recipients stores them. */
async function fill(notificationId: number, count: number): Promise<void> {
  const notification = { deploymentId: 7, id: notificationId, dashboardId: 70 };
  const rows = Array.from({ length: count }, (_, i) => ({
    PutRequest: {
      Item: encodeRecipient(notification, {
        type: 'EMBED_USER',
        embedTenantName: 'acme',
        normalizedExternalId: `stored-${i}@example.com`,
        externalId: `stored-${i}@example.com`,
        embedUserId: 1_000_000 + i,
        email: `stored-${i}@example.com`,
        properties: { groups: ['viewers'], securityContext: { region: 'emea', team: `team-${i % 31}` } },
      }),
    },
  }));
  await batchWriteAll(rows, { concurrency: FILL_CONCURRENCY });
}

async function measureSizes(
  stack: LocalStack,
  sizes: readonly number[],
  runs: number,
): Promise<SizeFigures[]> {
  const figures: SizeFigures[] = [];
  // The caller's lookup and the function's first load stay out of the figures.
  const warmUp = { recipients: [{ embedTenantName: 'acme', externalId: 'warm-up@example.com' }] };
  const [, , elsewhere] = CONCURRENCY_NOTIFICATION_IDS as [number, number, number];
  expectStatus(
    await stack.request(route.method, recipientsPath(elsewhere), { authorization, body: warmUp }),
    200,
    'warm-up',
  );
  const cases = sizes.flatMap((stored, index) =>
    BATCHES.map((adding) => ({
      stored,
      adding,
      notificationId: SCALE_NOTIFICATION_IDS[index] as number,
      times: [] as number[],
      work: undefined as DynamoWork | undefined,
    })),
  );
  for (const [index, stored] of sizes.entries()) await fill(SCALE_NOTIFICATION_IDS[index] as number, stored);
  // Run by run, every case in turn, starting one further each run: no size is favoured by its place.
  for (let run = 0; run < runs; run++) {
    for (const c of [...cases.slice(run % cases.length), ...cases.slice(0, run % cases.length)]) {
      const body = {
        recipients: Array.from({ length: c.adding }, (_, i) => ({
          embedTenantName: 'acme',
          externalId: `added-${c.stored}-${c.adding}-${run}-${i}@example.com`,
        })),
      };
      const send = async () => {
        const t0 = performance.now();
        const reply = await stack.request(route.method, recipientsPath(c.notificationId), {
          authorization,
          body,
        });
        const elapsed = performance.now() - t0;
        expectStatus(reply, 200, `add ${c.adding} to ${c.stored}`);
        return elapsed;
      };
      // Metered once; the meter's own work stays out of the timed runs.
      if (run === 0) c.work = (await metered(send)).work;
      else c.times.push(await send());
    }
  }
  figures.push(
    ...cases.map(({ stored, adding, work, times }) => ({
      stored,
      adding,
      work: work as DynamoWork,
      ms: summarize(times),
    })),
  );
  return figures;
}

const json = (reply: Reply) => JSON.parse(reply.text) as Record<string, Record<string, unknown>[]>;

async function counterValue(): Promise<number> {
  const { Item } = await documentClient().send(
    new GetCommand({ TableName: tableName(), Key: keys.counter('embedUser'), ConsistentRead: true }),
  );
  return (Item?.value as number | undefined) ?? 0;
}

/**
 * How many of the scenario's embed users exist, read by their keys: an embed user is keyed by tenant
 * and externalId, so no duplicate can hide elsewhere (a table Scan here took tens of minutes once the
 * full bench had filled the table: DynamoDB Local's Scan slows with the square of the table).
 */
async function embedUsersStored(recipients: readonly object[]): Promise<number> {
  const embedKeys = recipients.flatMap((recipient) =>
    'externalId' in recipient
      ? [keys.embedUser('acme', normalizeExternalId(String(recipient.externalId)))]
      : [],
  );
  return (await batchGetAll(embedKeys)).length;
}

async function measureConcurrency(stack: LocalStack): Promise<ConcurrencyFigures> {
  const [putTarget, addTarget, elsewhere] = CONCURRENCY_NOTIFICATION_IDS as [number, number, number];

  // 50 PUTs, each setting one field (5 fields, 10 times each), all at once.
  const put = routeOf('update-notification');
  const putPath = pathOf(put, { deploymentId: '7', id: String(putTarget) });
  const fields = [
    (i: number) => ({ minute: i }),
    (i: number) => ({ hour: i % 24 }),
    (i: number) => ({ isEnabled: i % 2 === 0 }),
    (i: number) => ({ notificationFormat: i % 2 === 0 ? 'pdf' : 'png' }),
    (i: number) => ({ timezone: i % 2 === 0 ? 'Asia/Tokyo' : 'UTC' }),
  ];
  const versionOf = async () =>
    ((
      await documentClient().send(
        new GetCommand({
          TableName: tableName(),
          Key: keys.notification(7, putTarget),
          ConsistentRead: true,
        }),
      )
    ).Item?.version as number | undefined) ?? 0;
  const versionBefore = await versionOf();
  const meter = meterDynamoDb(documentClient());
  let putReplies: Reply[];
  try {
    putReplies = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        stack.requestInParallel(put.method, putPath, {
          authorization,
          body: (fields[i % fields.length] as (i: number) => object)(i),
        }),
      ),
    );
  } finally {
    meter.detach();
  }
  const applied = putReplies.filter((reply) => reply.status === 200).length;
  const writes = meter.byOperation.UpdateItem?.requests ?? 0;
  const puts = {
    sent: putReplies.length,
    applied,
    conflicts: putReplies.filter((reply) => reply.status === 409).length,
    retries: writes - putReplies.length,
    // Every applied PUT moves the version by one: fewer moves than 200s means one overwrote another.
    lostUpdates: applied - ((await versionOf()) - versionBefore),
  };

  // 20 identical adds: 2 console users, 1 embed user that exists (recipient elsewhere), 4 new ones.
  const existing = { embedTenantName: 'acme', externalId: 'concurrent-existing@example.com' };
  expectStatus(
    await stack.request(route.method, recipientsPath(elsewhere), {
      authorization,
      body: { recipients: [existing] },
    }),
    200,
    'the existing embed user',
  );
  const recipients = [
    { userId: 2 },
    { email: 'dan@example.com' },
    existing,
    ...Array.from({ length: 4 }, (_, i) => ({
      embedTenantName: 'acme',
      externalId: `concurrent-${i}@example.com`,
    })),
  ];
  const [usersBefore, counterBefore] = [await embedUsersStored(recipients), await counterValue()];
  const addReplies = await Promise.all(
    Array.from({ length: 20 }, () =>
      stack.requestInParallel(route.method, recipientsPath(addTarget), {
        authorization,
        body: { recipients },
      }),
    ),
  );
  const identity = (item: Record<string, unknown>) =>
    item.type === 'USER' ? `user ${item.userId}` : `embed ${String(item.externalId)}`;
  const createdClaims: Record<string, number> = {};
  for (const reply of addReplies.filter((candidate) => candidate.status === 200)) {
    const body = json(reply);
    for (const item of [...(body.createdRecipients ?? []), ...(body.unchangedRecipients ?? [])])
      createdClaims[identity(item)] ??= 0;
    for (const item of body.createdRecipients ?? [])
      createdClaims[identity(item)] = (createdClaims[identity(item)] ?? 0) + 1;
  }
  const newEmbedUsers = 4;
  return {
    puts,
    adds: {
      sent: addReplies.length,
      ok: addReplies.filter((reply) => reply.status === 200).length,
      recipients: recipients.length,
      createdClaims,
      embedUsersCreated: (await embedUsersStored(recipients)) - usersBefore,
      newEmbedUsers,
      idsReserved: (await counterValue()) - counterBefore,
    },
  };
}

const figureAt = (s: SizeFigures, what: string) =>
  `add-recipients ${s.adding} new at ${s.stored} stored: ${what}`;

export async function costSection(bench: Bench, stack: LocalStack): Promise<CostResults> {
  const { budgets } = bench;
  const sizes = bench.smoke ? SMOKE_SIZES : SIZES;
  const runs = bench.smoke ? 2 : 11;
  section(
    `Cost at size: adding ${BATCHES.join(' and ')} recipients to notifications holding ${sizes.join(', ')}`,
  );
  const results: CostResults = { sizes: [] };
  const figures = await part(bench, 'cost at size', () => measureSizes(stack, sizes, runs));
  if (figures) {
    results.sizes = figures;
    for (const s of figures) {
      const empty = figures.find((f) => f.adding === s.adding && f.stored === 0) as SizeFigures;
      if (s === empty) continue;
      budgets.atMost(
        figureAt(s, 'DynamoDB requests'),
        s.work.requests - empty.work.requests,
        COST_GROWTH,
        'more than at 0',
        true,
      );
      budgets.atMost(
        figureAt(s, 'read units'),
        s.work.readUnits - empty.work.readUnits,
        COST_GROWTH,
        'RCU more than at 0',
        true,
      );
      budgets.atMost(
        figureAt(s, 'time / time at 0'),
        s.ms.median / empty.ms.median,
        TIME_AT_SIZE_RATIO,
        '×',
        false,
      );
    }
    log(table(sizesTable(figures, budgets.all)));
  }

  section('Concurrency: 50 concurrent single-field PUTs on one notification; 20 concurrent identical adds');
  const concurrency = await part(bench, 'concurrency', () => measureConcurrency(stack));
  if (concurrency) {
    results.concurrency = concurrency;
    const { puts, adds } = concurrency;
    budgets.atMost('50 concurrent PUTs: not applied', puts.sent - puts.applied, 2, 'PUTs', true);
    budgets.atMost('50 concurrent PUTs: lost updates', puts.lostUpdates, 0, 'updates', true);
    const wrongClaims = Object.values(adds.createdClaims).filter((claims) => claims !== 1).length;
    budgets.atMost('20 concurrent adds: failed answers', adds.sent - adds.ok, 0, 'answers', true);
    budgets.atMost(
      '20 concurrent adds: recipients not claimed created exactly once',
      wrongClaims,
      0,
      'recipients',
      true,
    );
    budgets.atMost(
      '20 concurrent adds: extra embed users',
      adds.embedUsersCreated - adds.newEmbedUsers,
      0,
      'users',
      true,
    );
    log(table(concurrencyTable(concurrency)));
  }
  return results;
}

export const sizesTable = (figures: SizeFigures[], budgets: Budget[]): Table => ({
  headers: ['stored', 'adding', 'DynamoDB requests', 'by operation', 'RCU', 'time median', '× at 0', 'met'],
  rows: figures.map((s) => {
    const empty = figures.find((f) => f.adding === s.adding && f.stored === 0);
    return [
      s.stored,
      s.adding,
      s.work.requests,
      Object.entries(s.work.byOperation)
        .map(([name, count]) => `${count} ${name}`)
        .join(', '),
      s.work.readUnits,
      ms(s.ms.median),
      empty ? times(s.ms.median / empty.ms.median) : '',
      s.stored === 0
        ? ''
        : [met(budgets, figureAt(s, 'DynamoDB requests')), met(budgets, figureAt(s, 'read units'))].join(
            ' / ',
          ),
    ];
  }),
});

export const concurrencyTable = ({ puts, adds }: ConcurrencyFigures): Table => {
  const claims = Object.values(adds.createdClaims);
  return {
    headers: ['scenario', 'answers', 'outcome', 'retries / ids'],
    rows: [
      [
        `${puts.sent} PUTs, one field each`,
        `${puts.applied} × 200, ${puts.conflicts} × 409`,
        `${puts.lostUpdates} lost updates`,
        `${puts.retries} write retries`,
      ],
      [
        `${adds.sent} identical adds of ${adds.recipients} recipients`,
        `${adds.ok} × 200`,
        `created claims per recipient: ${Math.min(...claims)}–${Math.max(...claims)}; ${adds.embedUsersCreated} embed users for ${adds.newEmbedUsers} new`,
        `${adds.idsReserved} ids reserved for ${adds.newEmbedUsers} new users`,
      ],
    ],
  };
};
