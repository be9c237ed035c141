import { type AddRecipientsFigures, measureAddRecipients } from './add-recipients.ts';
import {
  ADD_RECIPIENTS_NEW_REQUESTS,
  ADD_RECIPIENTS_RATIO,
  ADD_RECIPIENTS_REPLAY_REQUESTS,
  type Budget,
  DISPATCH_LIST_INDEX_WRITES_PER_FIRED,
  DISPATCH_REQUESTS_PER_FIRED,
  DISPATCH_REQUESTS_PER_RECIPIENT,
  DISPATCH_WRITE_UNITS_PER_FIRED,
  met,
  OUTCOME_COMPLETING_REQUESTS,
  OUTCOME_REQUESTS,
  OUTCOME_WRITE_UNITS,
  REQUEST_RATIO,
  retryRequests,
  SEND_NOW_REQUESTS,
} from './budgets.ts';
import { type DeliveryFigures, measureDeliveries } from './deliveries.ts';
import { type DispatchFigures, measureDispatch, type SendNowFigures } from './dispatch.ts';
import type { BenchKeys } from './fixture.ts';
import type { LocalStack } from './local-stack.ts';
import { type Bench, log, part, section } from './output.ts';
import {
  type DynamoWork,
  measureColdAuthentication,
  measureOperation,
  type OperationFigures,
} from './per-request.ts';
import { scenarios } from './scenarios.ts';
import { round, type Summary } from './stats.ts';
import { ms, type Table, table, times } from './table.ts';

/** Items 2 and 3: requests over the local adapter against DynamoDB Local. */

export interface RequestResults {
  perRequest: OperationFigures[];
  coldAuthentication: { credential: string; operation: string; coldMs: Summary; warmMs: Summary }[];
  addRecipients?: AddRecipientsFigures;
  dispatch?: DispatchFigures;
  deliveries?: DeliveryFigures;
}

/** The handler's own time against the bare calls: the local HTTP hop is API Gateway's part in AWS. */
const withoutHop = (o: OperationFigures) => (o.requestMs.median - o.transportMs.median) / o.bareMs.median;

const describe = (work: DynamoWork) =>
  Object.entries(work.byOperation)
    .map(([name, count]) => `${count} ${name}`)
    .join(', ');

const count = (calls: string[]) =>
  Object.entries(Object.groupBy(calls, (name) => name))
    .map(([name, list]) => `${list?.length} ${name}`)
    .join(', ');

export async function requestsSection(
  bench: Bench,
  stack: LocalStack,
  keys: BenchKeys,
): Promise<RequestResults> {
  const { settings, budgets, available } = bench;
  const results: RequestResults = { perRequest: [], coldAuthentication: [] };

  section(
    `Per request, warm: ${settings.requests} requests each, alternating with the bare calls and the HTTP hop alone`,
  );
  for (const operation of available) {
    const scenario = scenarios[operation];
    const o = await part(bench, operation, () =>
      measureOperation(stack, scenario, keys, { iterations: settings.requests, warmup: settings.warmup }),
    );
    if (!o) continue;
    results.perRequest.push(o);
    budgets.atMost(
      `${operation}: request / bare calls (median)`,
      round(o.requestMs.median / o.bareMs.median, 3),
      REQUEST_RATIO,
      '×',
      false,
    );
    budgets.atMost(
      `${operation}: DynamoDB requests, warm`,
      o.warm.requests,
      scenario.budget.warmRequests,
      'requests',
      true,
    );
    budgets.atMost(
      `${operation}: DynamoDB requests, cold cache`,
      o.coldCache.requests,
      scenario.budget.coldRequests,
      'requests',
      true,
    );
    budgets.atMost(
      `${operation}: read units, warm`,
      o.warm.readUnits,
      scenario.budget.readUnits,
      'RCU',
      true,
    );
    budgets.atMost(
      `${operation}: write units, warm`,
      o.warm.writeUnits,
      scenario.budget.writeUnits,
      'WCU',
      true,
    );
  }
  log(table(perRequestTable(results.perRequest, budgets.all)));

  section('DynamoDB work per request (SDK meter; capacity as DynamoDB Local reports it)');
  log(table(dynamoWorkTable(results.perRequest, budgets.all)));

  section('Authentication on an empty cache (a credential never seen), against a warm one, same operation');
  const adminScenario = [scenarios['set-dashboard-embedding'], scenarios['update-notification']].find((s) =>
    available.includes(s.operation),
  );
  const embedScenario = available.includes('get-embedded-dashboard')
    ? scenarios['get-embedded-dashboard']
    : undefined;
  for (const [credential, scenario] of [
    ['API key (link + user read)', adminScenario],
    ['embed JWT (tenant read + verifier)', embedScenario],
  ] as const) {
    if (!scenario) continue;
    const figures = await part(bench, `cold authentication, ${credential}`, () =>
      measureColdAuthentication(stack, scenario, keys, settings.coldAuthSamples),
    );
    if (figures) results.coldAuthentication.push({ credential, operation: scenario.operation, ...figures });
  }
  log(table(coldAuthenticationTable(results.coldAuthentication)));

  section('Add recipients: 1000 new embed recipients in one request, then the same request again');
  if (!available.includes('add-recipients')) {
    log('skipped: functions/add-recipients.ts does not exist yet');
    return results;
  }
  const a = await part(bench, 'add-recipients 1000', () =>
    measureAddRecipients(stack, settings.recipientRuns),
  );
  if (!a) return results;
  results.addRecipients = a;
  budgets.atMost(
    'add-recipients 1000 new: DynamoDB requests',
    a.newRequest.requests,
    ADD_RECIPIENTS_NEW_REQUESTS,
    'requests',
    true,
  );
  budgets.atMost(
    'add-recipients replay: DynamoDB requests',
    a.replay.requests,
    ADD_RECIPIENTS_REPLAY_REQUESTS,
    'requests',
    true,
  );
  budgets.atMost('add-recipients replay: write requests', a.replay.writeRequests, 0, 'requests', true);
  budgets.atMost('add-recipients replay: write units', a.replay.writeUnits, 0, 'WCU', true);
  budgets.atMost(
    'add-recipients 1000 new: time / bare BatchWrite',
    round(a.newMs.median / a.bareWriteMs.median, 3),
    ADD_RECIPIENTS_RATIO,
    '×',
    false,
  );
  log(table(addRecipientsTable(a)));

  section(
    'Dispatch: one pass with many notifications due in the same minute; send-now of many recipients, finished by the dispatcher',
  );
  const [dueNotifications, sendNowRecipients] = bench.smoke
    ? [200, [1_000, 2_000]]
    : [10_000, [10_000, 100_000]];
  const d = await part(bench, 'dispatch', () => measureDispatch(dueNotifications, sendNowRecipients));
  if (!d) return results;
  results.dispatch = d;
  budgets.atMost(
    'dispatch: DynamoDB requests per fired notification (3 recipients, the pass’s own reads apart)',
    round(d.requestsPerFiredOwn, 3),
    DISPATCH_REQUESTS_PER_FIRED,
    'requests',
    true,
  );
  budgets.atMost(
    'dispatch: write units per fired notification (3 recipients, table and due index)',
    round(d.billedWriteUnitsPerFired + d.dueIndexWriteUnitsPerFired, 3),
    DISPATCH_WRITE_UNITS_PER_FIRED,
    'WCU',
    true,
  );
  budgets.atMost(
    'dispatch: list-index writes per fired notification',
    round(d.listIndexWritesPerFired, 3),
    DISPATCH_LIST_INDEX_WRITES_PER_FIRED,
    'writes',
    true,
  );
  for (const s of d.sendNows) {
    budgets.atMost(
      `send-now of ${s.recipients} recipients: DynamoDB requests in the request`,
      s.request.requests,
      SEND_NOW_REQUESTS,
      'requests',
      true,
    );
    budgets.atMost(
      `send-now of ${s.recipients} recipients: DynamoDB requests per recipient, request and passes (their index reads apart)`,
      round(s.requestsPerRecipient, 3),
      DISPATCH_REQUESTS_PER_RECIPIENT,
      'requests',
      true,
    );
  }
  log(table(dispatchTable(d)));
  log(table(sendNowTable(d.sendNows)));

  section(
    'Delivery outcomes and retry: one report, many reports of one run at once, a retry of many failures',
  );
  const outcomeRecipients = bench.smoke ? 200 : 1000;
  const o = await part(bench, 'deliveries', () => measureDeliveries(outcomeRecipients));
  if (!o) return results;
  results.deliveries = o;
  budgets.atMost(
    'outcome report: DynamoDB requests',
    o.reportLargeRun.requests,
    OUTCOME_REQUESTS,
    'requests',
    true,
  );
  budgets.atMost(
    'outcome report completing its run: DynamoDB requests',
    o.reportSmallRun.requests,
    OUTCOME_COMPLETING_REQUESTS,
    'requests',
    true,
  );
  budgets.atMost(
    'outcome report: write units',
    o.reportLargeRun.billedWriteUnits,
    OUTCOME_WRITE_UNITS,
    'WCU',
    true,
  );
  budgets.atMost(
    `outcome report: requests in a run of ${outcomeRecipients} beyond a run of 1`,
    o.reportLargeRun.requests - (o.reportSmallRun.requests - 1),
    0,
    'requests',
    true,
  );
  budgets.atMost(
    `${o.concurrentReports} concurrent reports: counts wrong`,
    o.countsExact ? 0 : 1,
    0,
    '',
    true,
  );
  budgets.atMost(
    `retry of ${outcomeRecipients} failed deliveries: DynamoDB requests`,
    o.retry.requests,
    retryRequests(outcomeRecipients),
    'requests',
    true,
  );
  budgets.atMost(
    `retry of ${outcomeRecipients}: deliveries left failed`,
    outcomeRecipients - o.retried,
    0,
    '',
    true,
  );
  log(table(deliveriesTable(o)));
  return results;
}

const deliveriesTable = (o: DeliveryFigures): Table => ({
  headers: ['figure', 'value'],
  rows: [
    ['one report: DynamoDB requests (run of 1, which it completes)', String(o.reportSmallRun.requests)],
    [`one report: DynamoDB requests (run of ${o.recipients})`, String(o.reportLargeRun.requests)],
    ['one report: write units (billed)', String(o.reportLargeRun.billedWriteUnits)],
    ['reports of one run sent at once', String(o.concurrentReports)],
    ['time for all of them', ms(o.concurrentMs)],
    ['run counts exact afterwards', o.countsExact ? 'yes' : 'NO'],
    [`retry of ${o.recipients} failed deliveries: DynamoDB requests`, String(o.retry.requests)],
    ['retry: write units (meter)', String(round(o.retry.writeUnits, 1))],
    ['retry: time', ms(o.retryMs)],
  ],
});

export const dispatchTable = (d: DispatchFigures): Table => ({
  headers: ['figure', 'value'],
  rows: [
    ['notifications due in the minute', String(d.notifications)],
    ['pass wall time', ms(d.passMs)],
    ['DynamoDB requests per fired notification, all in', String(round(d.requestsPerFired, 3))],
    ['… the pass’s own reads (index shards, dashboards) apart', String(round(d.requestsPerFiredOwn, 3))],
    ['write units per fired notification (table, billed)', String(round(d.billedWriteUnitsPerFired, 3))],
    [
      'write units per fired notification (due index, billed)',
      String(round(d.dueIndexWriteUnitsPerFired, 3)),
    ],
    ['list-index writes per fired notification', String(round(d.listIndexWritesPerFired, 3))],
  ],
});

export const sendNowTable = (sendNows: SendNowFigures[]): Table => ({
  headers: [
    'recipients',
    'requests in the request',
    'request time',
    'queued by the request',
    'passes (60 s each)',
    'until dispatched (passes back to back)',
    "requests per recipient (passes' index reads apart)",
    'jobs written',
  ],
  rows: sendNows.map((s) => [
    String(s.recipients),
    `${s.request.requests} (${describe(s.request)})`,
    ms(s.requestMs),
    String(s.queuedInRequest),
    String(s.passes),
    ms(s.untilDispatchedMs),
    String(round(s.requestsPerRecipient, 3)),
    String(s.jobsWritten),
  ]),
});

export const perRequestTable = (perRequest: OperationFigures[], budgets: Budget[]): Table => ({
  headers: [
    'operation',
    'request median',
    'p99',
    'bare median',
    'p99',
    '× bare (≤ 1.3)',
    'HTTP hop',
    '× bare without the hop',
    'bare calls',
    'met',
  ],
  rows: perRequest.map((o) => [
    o.operation,
    ms(o.requestMs.median),
    ms(o.requestMs.p99),
    ms(o.bareMs.median),
    ms(o.bareMs.p99),
    times(o.requestMs.median / o.bareMs.median),
    ms(o.transportMs.median),
    times(withoutHop(o)),
    o.bareCalls.join(' → '),
    met(budgets, `${o.operation}: request / bare calls (median)`),
  ]),
});

export const dynamoWorkTable = (perRequest: OperationFigures[], budgets: Budget[]): Table => ({
  headers: [
    'operation',
    'request',
    'warm requests',
    'by operation',
    'RCU',
    'WCU',
    'cold-cache requests',
    'by operation',
    'met',
  ],
  rows: perRequest.map((o) => {
    const [warm, cold, read, write] = [
      'DynamoDB requests, warm',
      'DynamoDB requests, cold cache',
      'read units, warm',
      'write units, warm',
    ].map((f) => budgets.find((b) => b.figure === `${o.operation}: ${f}`));
    return [
      o.operation,
      o.description,
      `${o.warm.requests} (≤ ${warm?.limit})`,
      describe(o.warm),
      `${o.warm.readUnits} (≤ ${read?.limit})`,
      `${o.warm.writeUnits} (≤ ${write?.limit})`,
      `${o.coldCache.requests} (≤ ${cold?.limit})`,
      describe(o.coldCache),
      [warm, cold, read, write].every((b) => b?.met) ? 'yes' : 'NO',
    ];
  }),
});

export const coldAuthenticationTable = (coldAuthentication: RequestResults['coldAuthentication']): Table => ({
  headers: ['credential', 'operation', 'cold median', 'warm median', 'authentication'],
  rows: coldAuthentication.map((a) => [
    a.credential,
    a.operation,
    ms(a.coldMs.median),
    ms(a.warmMs.median),
    ms(a.coldMs.median - a.warmMs.median),
  ]),
});

export const addRecipientsTable = (a: AddRecipientsFigures): Table => ({
  headers: [
    'request',
    'DynamoDB requests',
    'by operation',
    'write requests',
    'WCU billed (est.)',
    'time median',
    '× floor (≤ 1.5)',
  ],
  rows: [
    [
      `${a.recipients} new (≤ 60 requests)`,
      a.newRequest.requests,
      describe(a.newRequest),
      a.newRequest.writeRequests,
      a.billedWriteUnits,
      ms(a.newMs.median),
      times(a.newMs.median / a.bareWriteMs.median),
    ],
    [
      '↳ its reads / its writes / no call in flight',
      '',
      '',
      '',
      '',
      `${ms(a.readsMs.median)} / ${ms(a.writesMs.median)} / ${ms(a.outsideCallsMs.median)}`,
      '',
    ],
    [
      `floor: its ${a.itemsWritten} items, bare BatchWrite (25 per call, 4 in flight)`,
      a.bareWriteRequests,
      `${a.bareWriteRequests} BatchWriteItem`,
      a.bareWriteRequests,
      a.bareBilledWriteUnits,
      ms(a.bareWriteMs.median),
      times(1),
    ],
    [
      'reference: its own write calls, bare',
      a.sameCalls.length,
      count(a.sameCalls),
      a.sameCalls.length,
      a.billedWriteUnits,
      ms(a.bareSameCallsMs.median),
      times(a.bareSameCallsMs.median / a.bareWriteMs.median),
    ],
    [
      'replay (≤ 13 requests, 0 writes)',
      a.replay.requests,
      describe(a.replay),
      a.replay.writeRequests,
      0,
      ms(a.replayMs.median),
      '',
    ],
  ],
});
