import { CfnOutput, Duration } from 'aws-cdk-lib';
import type { HttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import {
  Alarm,
  ComparisonOperator,
  Dashboard,
  GraphWidget,
  type IAlarmAction,
  type IMetric,
  type IWidget,
  MathExpression,
  Metric,
  TextWidget,
  TreatMissingData,
} from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import type { Table, Operation as TableOperation } from 'aws-cdk-lib/aws-dynamodb';
import type { Rule } from 'aws-cdk-lib/aws-events';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import { Construct } from 'constructs';
import { addRecipientsRoute, type Operation, sendNotificationRoute } from '#lib/routes';
import {
  DISPATCH_METRICS,
  DISPATCH_OPERATION,
  LATENCY_METRIC,
  METRICS_NAMESPACE,
  OPERATION_DIMENSION,
  RUN_DELIVERED_METRIC,
  RUN_FAILED_METRIC,
  RUNS_AWAITING_OUTCOMES_METRIC,
  SERVICE_NAME,
  statusClassMetrics,
} from '#lib/telemetry-names';
import type { ApiFunction } from './api-function.ts';

export interface MonitoringProps {
  stageName: string;
  /** Subscribed to the stage's alarm topic (e-mails), and alarmed besides it (an existing topic). */
  alarmRecipients: { emails: readonly string[]; topicArn?: string };
  api: HttpApi;
  table: Table;
  functions: ReadonlyMap<Operation, ApiFunction>;
  /** The scheduler's worker, started by the coordinator for its shards of a minute (it answers no route). */
  dispatcher: ApiFunction;
  /** The scheduler's coordinator, started every minute: it counts what is due and starts the workers. */
  coordinator: ApiFunction;
  /** The rule that starts the coordinator every minute. */
  dispatchRule: Rule;
  /** The DynamoDB operations the functions call: the ones whose throttling is watched. */
  tableOperations: readonly string[];
}

const PERIOD = Duration.minutes(5);
/** Above this share of 5xx answers over a period, someone should look. */
const SERVER_ERROR_RATE_PERCENT = 5;

/** CloudWatch's limit on the metrics of one alarm's math expression. */
const MAX_METRICS_PER_ALARM = 10;

/** Above this share of failed outcomes (over at least MIN_OUTCOMES reports) delivery itself is failing. */
const FAILED_DELIVERY_RATE_PERCENT = 10;
const MIN_OUTCOMES = 20;
const OUTCOME_PERIOD = Duration.minutes(15);

/** A dispatcher whose entries keep failing for this many periods in a row is not healing by itself. */
const DISPATCH_FAILURE_PERIODS = 3;

/**
 * What an operator watches: alarms on the 5xx rate, on throttling (the table's and the functions'),
 * on the dispatcher failing (its coordinator or workers), on the share of failed deliveries and on runs stuck awaiting outcomes, sent to one SNS topic to subscribe to, and a dashboard of the same
 * figures per operation. The delivery jobs' dead-letter queue has its alarm beside the queue (the
 * scheduler), sent to the same topic.
 */
/** The figures an alarm watches that the dashboard draws too. */
interface WatchedFigures {
  serverErrorRate: MathExpression;
  tableThrottles: IMetric;
  functionThrottles: MathExpression[];
  dispatchNotStarted: MathExpression;
  failedDeliveryRate: MathExpression;
  runsAwaitingOutcomes: Metric;
}

const OUTCOME_OPERATION = 'report-delivery-outcome';

/** A figure the functions emit (lib/telemetry-names.ts), of one operation. */
const emitted = (operation: string, metricName: string, statistic: string) =>
  new Metric({
    namespace: METRICS_NAMESPACE,
    metricName,
    dimensionsMap: { service: SERVICE_NAME, [OPERATION_DIMENSION]: operation },
    statistic,
    period: PERIOD,
    label: `${operation} ${metricName}`,
  });

/** A figure the outcome route emits, labelled by its name alone. */
const outcomes = (metricName: string, statistic: string, period: Duration) =>
  new Metric({
    namespace: METRICS_NAMESPACE,
    metricName,
    dimensionsMap: { service: SERVICE_NAME, [OPERATION_DIMENSION]: OUTCOME_OPERATION },
    statistic,
    period,
    label: metricName,
  });

/** One figure of every route's operation, each line labelled by its operation. */
const perOperation = (operations: Iterable<Operation>, metricName: string, statistic: string) =>
  [...operations].map(
    (operation) =>
      new Metric({
        namespace: METRICS_NAMESPACE,
        metricName,
        dimensionsMap: { service: SERVICE_NAME, [OPERATION_DIMENSION]: operation },
        statistic,
        period: PERIOD,
        label: operation,
      }),
  );

/**
 * What an operator watches: alarms on the 5xx rate, on throttling (the table's and the functions'),
 * on the dispatcher failing (its coordinator or workers), on the share of failed deliveries and on runs stuck awaiting outcomes, sent to one SNS topic to subscribe to, and a dashboard of the same
 * figures per operation. The delivery jobs' dead-letter queue has its alarm beside the queue (the
 * scheduler), sent to the same topic.
 */
export class Monitoring extends Construct {
  readonly alarmTopic: Topic;
  /** What every alarm of the stage does: publish to its topic, and to the operator's own topic if named. */
  readonly alarmActions: IAlarmAction[];
  readonly alarms: Alarm[] = [];
  readonly dashboard: Dashboard;

  constructor(scope: Construct, id: string, props: MonitoringProps) {
    super(scope, id);
    this.alarmTopic = this.topicOfAlarms(props.stageName, props.alarmRecipients.emails);
    this.alarmActions = this.actionsOfAlarms(props.alarmRecipients.topicArn);

    // Each alarm is made in this order, the dashboard after them: the order of the template.
    const figures: WatchedFigures = {
      serverErrorRate: this.serverErrorAlarm(props.api),
      tableThrottles: this.tableThrottlingAlarm(props.table, props.tableOperations),
      functionThrottles: this.functionThrottlingAlarms([
        ...props.functions.values(),
        props.dispatcher,
        props.coordinator,
      ]),
      dispatchNotStarted: this.dispatchAlarms(props),
      ...this.deliveryAlarms(),
    };

    this.dashboard = new Dashboard(this, 'Dashboard', {
      dashboardName: `notification-admin-${props.stageName}`,
      widgets: dashboardWidgets(props, figures),
    });

    new CfnOutput(scope, 'AlarmTopicArn', {
      value: this.alarmTopic.topicArn,
      description: 'Subscribe to be told of alarms',
    });
  }

  private topicOfAlarms(stageName: string, emails: readonly string[]): Topic {
    const topic = new Topic(this, 'AlarmTopic', {
      displayName: `Admin API alarms (${stageName})`,
      // Publishing without TLS is refused by the topic's policy.
      enforceSSL: true,
    });
    for (const email of emails) topic.addSubscription(new EmailSubscription(email));
    return topic;
  }

  private actionsOfAlarms(operatorTopicArn: string | undefined): IAlarmAction[] {
    return [
      new SnsAction(this.alarmTopic),
      ...(operatorTopicArn
        ? [new SnsAction(Topic.fromTopicArn(this, 'OperatorTopic', operatorTopicArn))]
        : []),
    ];
  }

  /** API Gateway's own counts: they include answers of functions that crashed or timed out. */
  private serverErrorAlarm(api: HttpApi): MathExpression {
    const serverErrorRate = new MathExpression({
      expression: 'IF(requests > 0, 100 * errors / requests, 0)',
      usingMetrics: {
        errors: api.metricServerError({ period: PERIOD, statistic: 'Sum' }),
        requests: api.metricCount({ period: PERIOD, statistic: 'Sum' }),
      },
      period: PERIOD,
      label: '5xx rate (%)',
    });
    this.alarm('ServerErrorRate', serverErrorRate, SERVER_ERROR_RATE_PERCENT, {
      description: `More than ${SERVER_ERROR_RATE_PERCENT}% of requests answered 5xx over 5 minutes`,
      evaluationPeriods: 1,
    });
    return serverErrorRate;
  }

  private tableThrottlingAlarm(table: Table, operations: readonly string[]): IMetric {
    const tableThrottles = table.metricThrottledRequestsForOperations({
      operations: operations as TableOperation[],
      period: PERIOD,
      statistic: 'Sum',
    });
    this.alarm('TableThrottling', tableThrottles, 0, {
      description: 'DynamoDB throttled requests of the table (the store retries, then answers 503)',
      evaluationPeriods: 1,
    });
    return tableThrottles;
  }

  /** An alarm's math may use at most 10 metrics: one alarm per 10 functions. */
  private functionThrottlingAlarms(fns: readonly ApiFunction[]): MathExpression[] {
    const functionThrottles: MathExpression[] = [];
    for (let start = 0; start < fns.length; start += MAX_METRICS_PER_ALARM) {
      const group = fns.slice(start, start + MAX_METRICS_PER_ALARM);
      const throttles = new MathExpression({
        expression: group.map((_, index) => `t${start + index}`).join(' + '),
        usingMetrics: Object.fromEntries(
          group.map((fn, index) => [
            `t${start + index}`,
            fn.metricThrottles({ period: PERIOD, statistic: 'Sum' }),
          ]),
        ),
        period: PERIOD,
        label: 'Lambda throttles',
      });
      functionThrottles.push(throttles);
      const suffix = start === 0 ? '' : String(start / MAX_METRICS_PER_ALARM + 1);
      this.alarm(`FunctionThrottling${suffix}`, throttles, 0, {
        description: 'Lambda refused invocations for lack of concurrency',
        evaluationPeriods: 1,
      });
    }
    return functionThrottles;
  }

  /** The dispatcher's alarms; returns the figure of dispatch starts that failed. */
  private dispatchAlarms({ dispatcher, coordinator, dispatchRule }: MonitoringProps): MathExpression {
    // An entry that fails is retried by the next pass: one failure is noise, failures every pass are not.
    this.alarm('DispatchFailures', emitted(DISPATCH_OPERATION, 'DispatchFailures', 'Sum'), 0, {
      description: `Dispatcher entries failed in each of ${DISPATCH_FAILURE_PERIODS} periods of 5 minutes: notifications are not firing`,
      evaluationPeriods: DISPATCH_FAILURE_PERIODS,
    });
    // A worker hands on what it would not fire in the minute; what it could not hand on fires late.
    this.alarm('DispatchLate', emitted(DISPATCH_OPERATION, 'DispatchLeft', 'Sum'), 0, {
      description:
        'A dispatcher worker left due notifications it could neither fire nor hand on: they fire a minute late or later',
      evaluationPeriods: 1,
    });
    this.alarm('DispatcherErrors', dispatcher.metricErrors({ period: PERIOD, statistic: 'Sum' }), 0, {
      description: 'The dispatcher function failed (the due index could not be read, or it crashed)',
      evaluationPeriods: 1,
    });
    // A coordinator that failed or was never started (EventBridge retries both) may leave a minute
    // unfired until the next one; a worker start Lambda dropped (throttled past a minute, or a failed
    // worker, which is not retried) leaves its shards to the next minute's count. Any, once, is worth a look.
    const dispatchNotStarted = new MathExpression({
      expression: 'coordinatorNotStarted + coordinatorErrors + workerStartsDropped',
      usingMetrics: {
        coordinatorNotStarted: new Metric({
          namespace: 'AWS/Events',
          metricName: 'FailedInvocations',
          dimensionsMap: { RuleName: dispatchRule.ruleName },
          period: PERIOD,
          statistic: 'Sum',
        }),
        coordinatorErrors: coordinator.metricErrors({ period: PERIOD, statistic: 'Sum' }),
        workerStartsDropped: dispatcher.metric('AsyncEventsDropped', { period: PERIOD, statistic: 'Sum' }),
      },
      period: PERIOD,
      label: 'dispatch starts failed (coordinator, workers)',
    });
    this.alarm('DispatchCoordination', dispatchNotStarted, 0, {
      description:
        'The dispatch coordinator failed or could not be started, or Lambda dropped a dispatcher worker it asked for: shards of a minute fire a minute late or later',
      evaluationPeriods: 1,
    });
    return dispatchNotStarted;
  }

  private deliveryAlarms(): Pick<WatchedFigures, 'failedDeliveryRate' | 'runsAwaitingOutcomes'> {
    // A few failures are the recipients' (a full mailbox); a high share is the renderer's or the mail system's.
    const failedDeliveryRate = new MathExpression({
      expression: `IF(delivered + failed >= ${MIN_OUTCOMES}, 100 * failed / (delivered + failed), 0)`,
      usingMetrics: {
        delivered: outcomes('DeliveriesDelivered', 'Sum', OUTCOME_PERIOD),
        failed: outcomes('DeliveriesFailed', 'Sum', OUTCOME_PERIOD),
      },
      period: OUTCOME_PERIOD,
      label: 'failed deliveries (%)',
    });
    this.alarm('FailedDeliveryRate', failedDeliveryRate, FAILED_DELIVERY_RATE_PERCENT, {
      description: `More than ${FAILED_DELIVERY_RATE_PERCENT}% of reported delivery outcomes were failures over 15 minutes`,
      evaluationPeriods: 1,
    });
    const runsAwaitingOutcomes = emitted(DISPATCH_OPERATION, RUNS_AWAITING_OUTCOMES_METRIC, 'Maximum');
    this.alarm('RunsStuckDispatched', runsAwaitingOutcomes, 0, {
      description: 'Runs dispatched over an hour ago still await outcomes: the renderer is not reporting',
      evaluationPeriods: 1,
    });
    return { failedDeliveryRate, runsAwaitingOutcomes };
  }

  private alarm(
    id: string,
    metric: IMetric,
    threshold: number,
    options: { description: string; evaluationPeriods: number },
  ): void {
    const alarm = new Alarm(this, id, {
      metric,
      threshold,
      comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
      evaluationPeriods: options.evaluationPeriods,
      alarmDescription: options.description,
      // No traffic is no failure.
      treatMissingData: TreatMissingData.NOT_BREACHING,
    });
    alarm.addAlarmAction(...this.alarmActions);
    this.alarms.push(alarm);
  }
}

/** The dashboard, row by row: the alarms' figures beside the per-operation ones. */
function dashboardWidgets(props: MonitoringProps, figures: WatchedFigures): IWidget[][] {
  const { api, functions, dispatcher, stageName } = props;
  return [
    [
      new TextWidget({
        markdown: `# Admin API (${stageName})\nAlarms go to the SNS topic in the stack outputs. docs/observability.md explains each figure.`,
        width: 24,
        height: 2,
      }),
    ],
    [
      new GraphWidget({
        title: 'Requests and 5xx rate (API Gateway)',
        left: [api.metricCount({ period: PERIOD, statistic: 'Sum' })],
        right: [figures.serverErrorRate],
        width: 12,
      }),
      new GraphWidget({
        title: 'Share of 5xx answers per operation',
        left: perOperation(functions.keys(), statusClassMetrics['5xx'], 'Average'),
        width: 12,
      }),
    ],
    [
      new GraphWidget({
        title: 'Latency p99 per operation (ms)',
        left: perOperation(functions.keys(), LATENCY_METRIC, 'p99'),
        width: 12,
      }),
      new GraphWidget({
        title: 'Share of 4xx answers per operation',
        left: perOperation(functions.keys(), statusClassMetrics['4xx'], 'Average'),
        width: 12,
      }),
    ],
    [
      new GraphWidget({
        title: 'Throttling',
        left: [figures.tableThrottles, ...figures.functionThrottles],
        width: 12,
      }),
      new GraphWidget({
        title: 'Business events',
        left: [addRecipientsRoute, sendNotificationRoute].flatMap((route) =>
          route.businessMetrics.map((metricName) => emitted(route.operation, metricName, 'Sum')),
        ),
        width: 12,
      }),
    ],
    [
      new GraphWidget({
        title: 'Delivery outcomes',
        left: [
          outcomes('DeliveriesDelivered', 'Sum', PERIOD),
          outcomes('DeliveriesFailed', 'Sum', PERIOD),
          emitted('retry-run', 'DeliveriesRetried', 'Sum'),
        ],
        right: [figures.failedDeliveryRate],
        width: 8,
      }),
      new GraphWidget({
        title: 'Per completed run: deliveries delivered and failed (average)',
        left: [
          outcomes(RUN_DELIVERED_METRIC, 'Average', PERIOD),
          outcomes(RUN_FAILED_METRIC, 'Average', PERIOD),
        ],
        width: 8,
      }),
      new GraphWidget({
        title: 'Runs awaiting outcomes for over an hour',
        left: [figures.runsAwaitingOutcomes],
        width: 8,
      }),
    ],
    [
      new GraphWidget({
        title: 'Dispatcher passes',
        left: DISPATCH_METRICS.map((metricName) => emitted(DISPATCH_OPERATION, metricName, 'Sum')),
        right: [
          dispatcher.metricErrors({ period: PERIOD, statistic: 'Sum', label: 'dispatcher errors' }),
          figures.dispatchNotStarted,
        ],
        width: 24,
      }),
    ],
  ];
}
