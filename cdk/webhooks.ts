import { fileURLToPath } from 'node:url';
import { CfnOutput, Duration, type RemovalPolicy } from 'aws-cdk-lib';
import { Alarm, ComparisonOperator, type IAlarmAction, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import { FilterPattern, MetricFilter } from 'aws-cdk-lib/aws-logs';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import type { TableAction } from '#lib/routes';
import { ApiFunction } from './api-function.ts';
import { acknowledgeRuleTargetDeadLetterQueue } from './guardrails.ts';
import type { StageConfig } from './stages.ts';

/**
 * Webhook messages deployed (docs/webhooks.md): the relay, started every minute, puts what the outbox
 * holds due on the webhook queue; the sender takes the queue's messages ten at a time and attempts
 * each at once. A batch that keeps failing lands in the queue's dead-letter queue, and its messages
 * come back from the outbox when their claim ends.
 */

/** The relay's table actions, read off lib/store/webhooks/messages.ts and endpoints.ts. */
export const WEBHOOK_RELAY_TABLE_ACTIONS: readonly TableAction[] = [
  // The due events and messages (gsi3, partition WEBHOOKS_DUE).
  'dynamodb:Query',
  // The deployment's endpoints item.
  'dynamodb:GetItem',
  // An event's messages; a message's claim.
  'dynamodb:PutItem',
  // The event, once its messages are made.
  'dynamodb:DeleteItem',
];

/** The sender's table actions. */
export const WEBHOOK_SENDER_TABLE_ACTIONS: readonly TableAction[] = [
  'dynamodb:GetItem',
  // The message's claim and its attempt recorded.
  'dynamodb:PutItem',
  // The endpoint's health (its failure streak, disabled after five days of failures).
  'dynamodb:UpdateItem',
];

/** An attempt may take 15 seconds; a batch's attempts run side by side. */
const SENDER_TIMEOUT_SECONDS = 60;

export interface WebhooksProps {
  stage: StageConfig;
  table: ITable;
  environment: Record<string, string>;
  removalPolicy: RemovalPolicy;
}

const queueDefaults = (props: WebhooksProps) => ({
  encryption: QueueEncryption.SQS_MANAGED,
  enforceSSL: true,
  removalPolicy: props.removalPolicy,
});

const functionDefaults = ({ stage, removalPolicy }: WebhooksProps) => ({
  memoryMiB: 512,
  logRetention: stage.logRetention,
  logRemovalPolicy: removalPolicy,
  tracing: stage.tracing,
});

export class Webhooks extends Construct {
  readonly queue: Queue;
  readonly deadLetterQueue: Queue;
  readonly relay: ApiFunction;
  readonly sender: ApiFunction;
  readonly rule: Rule;
  readonly alarms: Alarm[] = [];

  constructor(scope: Construct, id: string, props: WebhooksProps) {
    super(scope, id);
    const { stage } = props;
    this.deadLetterQueue = this.createDeadLetterQueue(props);
    this.queue = this.createQueue(props);
    this.relay = this.createRelay(scope, props);
    this.sender = this.createSender(scope, props);
    this.rule = new Rule(this, 'EveryMinute', {
      description: `Starts the webhook relay (${stage.name})`,
      schedule: Schedule.rate(Duration.minutes(1)),
      targets: [
        new LambdaFunction(this.relay, {
          retryAttempts: 2,
          maxEventAge: Duration.minutes(2),
          deadLetterQueue: this.deadLetterQueue,
        }),
      ],
    });
    new CfnOutput(scope, 'WebhookQueueName', {
      value: this.queue.queueName,
      description: 'Due webhook messages on their way to the sender',
    });
  }

  private createDeadLetterQueue(props: WebhooksProps): Queue {
    const deadLetterQueue = new Queue(this, 'WebhookDeadLetter', {
      ...queueDefaults(props),
      queueName: `notification-webhooks-dlq-${props.stage.name}`,
      retentionPeriod: Duration.days(14),
    });
    acknowledgeRuleTargetDeadLetterQueue(deadLetterQueue);
    return deadLetterQueue;
  }

  private createQueue(props: WebhooksProps): Queue {
    return new Queue(this, 'WebhookQueue', {
      ...queueDefaults(props),
      queueName: `notification-webhooks-${props.stage.name}`,
      visibilityTimeout: Duration.seconds(SENDER_TIMEOUT_SECONDS * 6),
      deadLetterQueue: { queue: this.deadLetterQueue, maxReceiveCount: 3 },
    });
  }

  private createRelay(scope: Construct, props: WebhooksProps): ApiFunction {
    const relay = new ApiFunction(scope, 'webhook-relay', {
      ...functionDefaults(props),
      entry: fileURLToPath(new URL('../functions/webhook-relay.ts', import.meta.url)),
      description: `Puts due webhook messages on their queue every minute (${props.stage.name})`,
      timeoutSeconds: 50,
      environment: { ...props.environment, WEBHOOK_QUEUE_URL: this.queue.queueUrl },
    });
    relay.bindTable(props.table, WEBHOOK_RELAY_TABLE_ACTIONS);
    this.queue.grantSendMessages(relay);
    return relay;
  }

  private createSender(scope: Construct, props: WebhooksProps): ApiFunction {
    const sender = new ApiFunction(scope, 'webhook-sender', {
      ...functionDefaults(props),
      entry: fileURLToPath(new URL('../functions/webhook-sender.ts', import.meta.url)),
      description: `Sends webhook messages to customers' endpoints (${props.stage.name})`,
      timeoutSeconds: SENDER_TIMEOUT_SECONDS,
      environment: props.environment,
    });
    sender.bindTable(props.table, WEBHOOK_SENDER_TABLE_ACTIONS);
    sender.addEventSource(new SqsEventSource(this.queue, { batchSize: 10, reportBatchItemFailures: true }));
    return sender;
  }

  /** Endpoints failing, messages waiting too long, batches given up: someone should look. */
  alarmTo(actions: readonly IAlarmAction[]): Alarm[] {
    const failing = new MetricFilter(this, 'FailedAttempts', {
      logGroup: this.sender.logGroup,
      filterPattern: FilterPattern.stringValue('$.message', '=', 'webhook attempt failed'),
      metricNamespace: 'NotificationAdmin/Webhooks',
      metricName: 'FailedAttempts',
      metricValue: '1',
    });
    const alarms = [
      new Alarm(this, 'WebhookEndpointsFailing', {
        alarmDescription: 'Webhook attempts kept failing for 30 minutes: some endpoint is down or refusing',
        metric: failing.metric({ period: Duration.minutes(10), statistic: 'Sum' }),
        threshold: 0,
        evaluationPeriods: 3,
        comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
        treatMissingData: TreatMissingData.NOT_BREACHING,
      }),
      new Alarm(this, 'WebhookOldestWaiting', {
        alarmDescription:
          'A webhook message has waited on the queue for over 10 minutes: the sender is not keeping up',
        metric: this.queue.metricApproximateAgeOfOldestMessage({ period: Duration.minutes(5) }),
        threshold: 600,
        evaluationPeriods: 1,
        comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
        treatMissingData: TreatMissingData.NOT_BREACHING,
      }),
      new Alarm(this, 'WebhookDeadLetters', {
        alarmDescription:
          'Webhook batches or relay starts failed every retry and wait in the dead-letter queue',
        metric: this.deadLetterQueue.metricApproximateNumberOfMessagesVisible({
          period: Duration.minutes(5),
        }),
        threshold: 0,
        evaluationPeriods: 1,
        comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
        treatMissingData: TreatMissingData.NOT_BREACHING,
      }),
    ];
    for (const alarm of alarms) alarm.addAlarmAction(...actions);
    this.alarms.push(...alarms);
    return alarms;
  }
}
