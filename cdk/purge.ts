import { fileURLToPath } from 'node:url';
import { CfnOutput, Duration, type RemovalPolicy } from 'aws-cdk-lib';
import { Alarm, ComparisonOperator, type IAlarmAction, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import type { TableAction } from '#lib/routes';
import { PURGE_TIMEOUT_SECONDS } from '#lib/timeouts';
import { ApiFunction } from './api-function.ts';
import { acknowledgeRuleTargetDeadLetterQueue } from './guardrails.ts';
import type { StageConfig } from './stages.ts';

/**
 * What empties a deleted notification's partition: the purge function, started every minute by an
 * EventBridge rule, whose failed starts land in a dead-letter queue. docs/data-model.md ("Delete and
 * the purge") gives the design.
 */

/** The purge's table actions, read off lib/store/deletion/purge-store.ts. */
export const PURGE_TABLE_ACTIONS: readonly TableAction[] = [
  // Whether a notification exists under the id again, before each step: then it is left alone.
  'dynamodb:GetItem',
  // The pending purges (gsi1, partition PURGES); a partition's keys, a step at a time.
  'dynamodb:Query',
  // A partition's items, 25 per call.
  'dynamodb:BatchWriteItem',
  // The tombstone, once its partition is empty.
  'dynamodb:DeleteItem',
];

/** A purge whose passes keep failing this many periods in a row is not healing by itself. */
const FAILING_PERIODS = 3;

export interface PurgeProps {
  stage: StageConfig;
  table: ITable;
  environment: Record<string, string>;
  removalPolicy: RemovalPolicy;
}

export class Purge extends Construct {
  readonly function: ApiFunction;
  readonly deadLetterQueue: Queue;
  readonly rule: Rule;
  readonly alarms: Alarm[] = [];

  constructor(scope: Construct, id: string, props: PurgeProps) {
    super(scope, id);
    const { stage } = props;
    this.deadLetterQueue = new Queue(this, 'PurgeDeadLetter', {
      queueName: `notification-purge-dlq-${stage.name}`,
      retentionPeriod: Duration.days(14),
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      removalPolicy: props.removalPolicy,
    });
    acknowledgeRuleTargetDeadLetterQueue(this.deadLetterQueue);
    this.function = new ApiFunction(scope, 'purge', {
      entry: fileURLToPath(new URL('../functions/purge.ts', import.meta.url)),
      description: `Empties the partitions of deleted notifications every minute (${stage.name})`,
      memoryMiB: 1024,
      timeoutSeconds: PURGE_TIMEOUT_SECONDS,
      environment: props.environment,
      logRetention: stage.logRetention,
      logRemovalPolicy: props.removalPolicy,
      tracing: stage.tracing,
    });
    this.function.bindTable(props.table, PURGE_TABLE_ACTIONS);
    this.rule = new Rule(this, 'EveryMinute', {
      description: `Starts the purge of deleted notifications (${stage.name})`,
      schedule: Schedule.rate(Duration.minutes(1)),
      targets: [
        new LambdaFunction(this.function, {
          // A failed start is retried; a pass is safe to repeat, and the next minute's would do it too.
          retryAttempts: 2,
          maxEventAge: Duration.minutes(2),
          deadLetterQueue: this.deadLetterQueue,
        }),
      ],
    });
    new CfnOutput(scope, 'PurgeDeadLetterQueueName', {
      value: this.deadLetterQueue.queueName,
      description: 'Purge starts that failed every retry',
    });
  }

  /** Passes that keep failing, or starts that could not be made: someone should look. */
  alarmTo(actions: readonly IAlarmAction[]): Alarm[] {
    const failing = new Alarm(this, 'PurgeFailing', {
      alarmDescription: `The purge of deleted notifications failed in ${FAILING_PERIODS} periods of 5 minutes in a row`,
      metric: this.function.metricErrors({ period: Duration.minutes(5), statistic: 'Sum' }),
      threshold: 0,
      evaluationPeriods: FAILING_PERIODS,
      comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    });
    const lostStarts = new Alarm(this, 'PurgeDeadLetters', {
      alarmDescription: 'Purge starts failed every retry and wait in the dead-letter queue',
      metric: this.deadLetterQueue.metricApproximateNumberOfMessagesVisible({ period: Duration.minutes(5) }),
      threshold: 0,
      evaluationPeriods: 1,
      comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    });
    for (const alarm of [failing, lostStarts]) alarm.addAlarmAction(...actions);
    this.alarms.push(failing, lostStarts);
    return this.alarms;
  }
}
