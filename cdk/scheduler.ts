import { fileURLToPath } from 'node:url';
import { CfnOutput, Duration, type RemovalPolicy } from 'aws-cdk-lib';
import { Alarm, ComparisonOperator, type IAlarmAction, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import {
  AccountPrincipal,
  ArnPrincipal,
  type IPrincipal,
  type IRole,
  Policy,
  PolicyStatement,
} from 'aws-cdk-lib/aws-iam';
import type { ParamsAndSecretsLayerVersion } from 'aws-cdk-lib/aws-lambda';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { SQS_MESSAGE_MAX_BYTES } from '#lib/limits';
import type { TableAction } from '#lib/routes';
import { DISPATCHER_TIMEOUT_SECONDS } from '#lib/timeouts';
import { ApiFunction } from './api-function.ts';
import { acknowledgeRuleTargetDeadLetterQueue } from './guardrails.ts';
import type { StageConfig } from './stages.ts';

/**
 * What makes schedules fire: the renderer's job queue with its dead-letter queue, the coordinator
 * started every minute, and the dispatcher workers it starts, one per group of due-index shards.
 * docs/scheduling.md gives the design.
 */

/** The dispatcher's table actions, read off lib/store/dispatch/dispatch.ts. */
export const DISPATCHER_TABLE_ACTIONS: readonly TableAction[] = [
  // The due index (gsi3), every shard; a notification with its entry and recipients, a page at a time.
  'dynamodb:Query',
  // The dashboard link and the dashboard.
  'dynamodb:GetItem',
  // A run, created only if its id is new; deliveries in the claim; a schedule entry a change left to store.
  'dynamodb:PutItem',
  // The schedule entry's move, a change's mark, a run's lease, progress and end.
  'dynamodb:UpdateItem',
  // Console users of a page of recipients.
  'dynamodb:BatchGetItem',
  // Deliveries, 25 per call.
  'dynamodb:BatchWriteItem',
];

/**
 * The coordinator's table actions: one counting Query per shard of the due index; Queries of the runs
 * awaiting outcomes and an UpdateItem of each one a dead outcome report left unsettled; a run so
 * settled that suspends its notification puts the `suspended` audit event (PutItem) in the hold's
 * transaction.
 */
export const COORDINATOR_TABLE_ACTIONS: readonly TableAction[] = [
  'dynamodb:Query',
  'dynamodb:UpdateItem',
  // A settled run that suspends its notification: the hold, its hold entry and its audit event, one
  // transaction (and its webhook event).
  'dynamodb:PutItem',
  'dynamodb:DeleteItem',
  // Its settles and suspensions read the deployment's webhook subscriptions, and a suspension whose
  // event is wanted reads the notification's owner.
  'dynamodb:GetItem',
];

/** Counting what is due and starting the workers takes a second or two. */
export const COORDINATOR_TIMEOUT_SECONDS = 30;
/** A job the renderer failed this often goes to the dead-letter queue. */
export const MAX_RECEIVE_COUNT = 5;

/**
 * What the renderer's principals may do on the delivery queue: take a job, delete it once handled, and
 * hold it longer while rendering. Lambda's SQS event source also reads the queue's attributes first.
 */
export const RENDERER_QUEUE_ACTIONS = [
  'sqs:ReceiveMessage',
  'sqs:DeleteMessage',
  'sqs:ChangeMessageVisibility',
  'sqs:GetQueueAttributes',
] as const;

/** A 12-digit account id is the account's root principal (the account then delegates); an ARN is itself. */
const rendererPrincipal = (principal: string): IPrincipal =>
  /^\d{12}$/.test(principal) ? new AccountPrincipal(principal) : new ArnPrincipal(principal);

export interface SchedulerProps {
  stage: StageConfig;
  table: ITable;
  environment: Record<string, string>;
  removalPolicy: RemovalPolicy;
  /** Functions besides the dispatcher that queue jobs (send-now). */
  producers: readonly ApiFunction[];
  /** How the dispatcher reads the unsubscribe key it signs links with (AWS's secrets extension). */
  secretsExtension: ParamsAndSecretsLayerVersion;
}

export class Scheduler extends Construct {
  readonly queue: Queue;
  readonly deadLetterQueue: Queue;
  /** The coordinator's starts that failed every retry: kept for a look, alarmed. */
  readonly startsDeadLetterQueue: Queue;
  /** A worker: one dispatch pass over the shards the coordinator names. */
  readonly dispatcher: ApiFunction;
  /** Started every minute: counts what is due per shard and starts the workers it needs. */
  readonly coordinator: ApiFunction;
  readonly rule: Rule;
  readonly alarms: Alarm[] = [];

  constructor(scope: Construct, id: string, props: SchedulerProps) {
    super(scope, id);
    const { stage, removalPolicy } = props;
    this.deadLetterQueue = this.createDeliveryDeadLetterQueue(stage, removalPolicy);
    this.queue = this.createDeliveryQueue(stage, removalPolicy);
    this.letRenderersConsume(stage.rendererPrincipals);

    this.dispatcher = this.createDispatcher(scope, props);
    for (const fn of [this.dispatcher, ...props.producers]) {
      this.queue.grantSendMessages(fn);
      fn.addEnvironment('DELIVERY_QUEUE_URL', this.queue.queueUrl);
    }
    this.coordinator = this.createCoordinator(scope, props);

    this.startsDeadLetterQueue = new Queue(this, 'DispatchStartsDeadLetter', {
      queueName: `notification-dispatch-dlq-${stage.name}`,
      retentionPeriod: Duration.days(14),
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      removalPolicy,
    });
    acknowledgeRuleTargetDeadLetterQueue(this.startsDeadLetterQueue);
    this.rule = this.startEveryMinute(stage);

    this.outputs(scope);
  }

  private createDeliveryDeadLetterQueue(stage: StageConfig, removalPolicy: RemovalPolicy): Queue {
    return new Queue(this, 'DeliveryJobsDeadLetter', {
      queueName: `notification-delivery-jobs-dlq-${stage.name}`,
      retentionPeriod: Duration.days(14),
      // A job the renderer gave up on moves here whatever its size.
      maxMessageSizeBytes: SQS_MESSAGE_MAX_BYTES,
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      removalPolicy,
    });
  }

  private createDeliveryQueue(stage: StageConfig, removalPolicy: RemovalPolicy): Queue {
    return new Queue(this, 'DeliveryJobs', {
      queueName: `notification-delivery-jobs-${stage.name}`,
      retentionPeriod: Duration.days(4),
      visibilityTimeout: Duration.minutes(5),
      // SQS's maximum, stated: left out, the queue keeps whatever default applies (256 KiB on queues made
      // before SQS raised it), and a job of a notification with large filters would be refused on every retry.
      maxMessageSizeBytes: SQS_MESSAGE_MAX_BYTES,
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      deadLetterQueue: { queue: this.deadLetterQueue, maxReceiveCount: MAX_RECEIVE_COUNT },
      removalPolicy,
    });
  }

  /** Granted by the queue's own policy, so a renderer in another account needs nothing from this stack's roles. */
  private letRenderersConsume(principals: readonly string[]): void {
    if (principals.length === 0) return;
    this.queue.addToResourcePolicy(
      new PolicyStatement({
        sid: 'RendererConsumes',
        principals: principals.map(rendererPrincipal),
        actions: [...RENDERER_QUEUE_ACTIONS],
        resources: [this.queue.queueArn],
      }),
    );
  }

  private createDispatcher(scope: Construct, props: SchedulerProps): ApiFunction {
    const { stage } = props;
    const dispatcher = new ApiFunction(scope, 'dispatch', {
      entry: fileURLToPath(new URL('../functions/dispatch.ts', import.meta.url)),
      description: `Fires the due notifications of the shards it is given (${stage.name})`,
      // One full vCPU: a worker's fires are bound by its CPU as much as by DynamoDB (lib/domain/dispatch/dispatch-fanout.ts).
      memoryMiB: 1769,
      timeoutSeconds: DISPATCHER_TIMEOUT_SECONDS,
      environment: props.environment,
      logRetention: stage.logRetention,
      logRemovalPolicy: props.removalPolicy,
      secretsExtension: props.secretsExtension,
      tracing: stage.tracing,
      // Up to 64 workers in the busiest minute: capped, so that they cannot take the API's concurrency.
      reservedConcurrency: stage.dispatcherReservedConcurrency,
    });
    dispatcher.bindTable(props.table, DISPATCHER_TABLE_ACTIONS);
    // A worker starts continuations of itself (functions/dispatch.ts). A policy of its own, not the
    // role's default one: the function waits for that policy, which would then wait for the function.
    new Policy(this, 'DispatcherContinuations', {
      roles: [dispatcher.role as IRole],
      statements: [
        new PolicyStatement({ actions: ['lambda:InvokeFunction'], resources: [dispatcher.functionArn] }),
      ],
    });
    // A worker that fails is not run again: the next minute's coordinator counts what it left and
    // plans it afresh, and a late retry would only read the same slices twice. A start that Lambda
    // cannot make within the minute (throttled) is dropped: the monitoring's alarm counts both.
    dispatcher.configureAsyncInvoke({ retryAttempts: 0, maxEventAge: Duration.minutes(1) });
    return dispatcher;
  }

  private createCoordinator(scope: Construct, props: SchedulerProps): ApiFunction {
    const { stage } = props;
    const coordinator = new ApiFunction(scope, 'dispatch-coordinator', {
      entry: fileURLToPath(new URL('../functions/dispatch-coordinator.ts', import.meta.url)),
      description: `Counts what is due every minute and starts the dispatchers it needs (${stage.name})`,
      memoryMiB: 512,
      timeoutSeconds: COORDINATOR_TIMEOUT_SECONDS,
      environment: { ...props.environment, DISPATCH_WORKER_FUNCTION: this.dispatcher.functionName },
      logRetention: stage.logRetention,
      logRemovalPolicy: props.removalPolicy,
      tracing: stage.tracing,
    });
    coordinator.bindTable(props.table, COORDINATOR_TABLE_ACTIONS);
    // The coordinator invokes the worker by its name, unqualified: no version or alias (grantInvoke would add `:*`).
    coordinator.addToRolePolicy(
      new PolicyStatement({ actions: ['lambda:InvokeFunction'], resources: [this.dispatcher.functionArn] }),
    );
    return coordinator;
  }

  private startEveryMinute(stage: StageConfig): Rule {
    return new Rule(this, 'EveryMinute', {
      description: `Starts the notification dispatch coordinator (${stage.name})`,
      schedule: Schedule.rate(Duration.minutes(1)),
      targets: [
        new LambdaFunction(this.coordinator, {
          // A failed start is retried; a pass is safe to repeat, and the next minute's would do it too.
          retryAttempts: 2,
          maxEventAge: Duration.minutes(2),
          deadLetterQueue: this.startsDeadLetterQueue,
        }),
      ],
    });
  }

  private outputs(scope: Construct): void {
    new CfnOutput(scope, 'DeliveryQueueUrl', {
      value: this.queue.queueUrl,
      description: "The renderer's input: one delivery job per message",
    });
    new CfnOutput(scope, 'DeliveryQueueName', {
      value: this.queue.queueName,
      description: 'Delivery job queue',
    });
    new CfnOutput(scope, 'DeliveryDeadLetterQueueName', {
      value: this.deadLetterQueue.queueName,
      description: `Jobs the renderer failed ${MAX_RECEIVE_COUNT} times`,
    });
    new CfnOutput(scope, 'DeliveryQueueArn', {
      value: this.queue.queueArn,
      description: "The renderer's input, as its role's policy names it (docs/deploy-your-account.md)",
    });
    new CfnOutput(scope, 'DispatchDeadLetterQueueName', {
      value: this.startsDeadLetterQueue.queueName,
      description: 'Dispatch coordinator starts that failed every retry',
    });
  }

  /**
   * A job in the dead-letter queue is one the renderer gave up on; a start there is a minute the
   * coordinator could not be started for: someone should look at either.
   */
  alarmTo(actions: readonly IAlarmAction[]): Alarm[] {
    const lostStarts = new Alarm(this, 'DispatchStartsDeadLetters', {
      alarmDescription: 'Dispatch coordinator starts failed every retry and wait in the dead-letter queue',
      metric: this.startsDeadLetterQueue.metricApproximateNumberOfMessagesVisible({
        period: Duration.minutes(5),
      }),
      threshold: 0,
      evaluationPeriods: 1,
      comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    });
    const alarm = new Alarm(this, 'DeadLetterJobs', {
      alarmDescription: 'Delivery jobs the renderer failed repeatedly are waiting in the dead-letter queue',
      metric: this.deadLetterQueue.metricApproximateNumberOfMessagesVisible({ period: Duration.minutes(5) }),
      threshold: 0,
      evaluationPeriods: 1,
      comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    });
    for (const each of [alarm, lostStarts]) each.addAlarmAction(...actions);
    this.alarms.push(alarm, lostStarts);
    return this.alarms;
  }
}
