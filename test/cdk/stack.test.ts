import { fileURLToPath } from 'node:url';
import { App, type Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import type { CfnFunction } from 'aws-cdk-lib/aws-lambda';
import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { beforeAll, describe, expect, it } from 'vitest';
import { readConfig } from '#lib/config';
import { SQS_MESSAGE_MAX_BYTES } from '#lib/limits';
import { memoryMiBOf, routeKey, routes, timeoutSecondsOf } from '#lib/routes';
import { PURGE_GRACE_MS } from '#lib/store/notifications/notification-guard';
import { DISPATCHER_TIMEOUT_SECONDS, LONGEST_WRITER_SECONDS, PURGE_TIMEOUT_SECONDS } from '#lib/timeouts';
import { addStageStack } from '../../cdk/admin-api-app.ts';
import type { AdminApiStack } from '../../cdk/admin-api-stack.ts';
import { PURGE_TABLE_ACTIONS } from '../../cdk/purge.ts';
import {
  COORDINATOR_TABLE_ACTIONS,
  COORDINATOR_TIMEOUT_SECONDS,
  DISPATCHER_TABLE_ACTIONS,
  MAX_RECEIVE_COUNT,
} from '../../cdk/scheduler.ts';
import { loadStage, StageConfigError } from '../../cdk/stages.ts';

/** A production stage's settings as an operator fills them in: the committed prod.example.json's, finished. */
const PROD_SETTINGS = fileURLToPath(new URL('./stages/prod.json', import.meta.url));

/**
 * The template as `cdk synth -c stage=<name>` writes it. Bundling is skipped (`aws:cdk:bundling-stacks`
 * empty): these tests read the template, not the code, and bundling adds seconds per stage.
 */
function synth(stage: string, stageFile?: string): { stack: AdminApiStack; template: Template } {
  const app = new App({ context: { stage, stageFile, 'aws:cdk:bundling-stacks': [] } });
  const stack = addStageStack(app);
  return { stack, template: Template.fromStack(stack) };
}

/** dev and prod are synthesized once for the whole file. */
const synthesized = new Map<string, ReturnType<typeof synth>>();
function stage(name: 'dev' | 'prod'): ReturnType<typeof synth> {
  let result = synthesized.get(name);
  if (!result) {
    result = synth(name, name === 'prod' ? PROD_SETTINGS : undefined);
    synthesized.set(name, result);
  }
  return result;
}

type Resource = { Type: string; Properties: Record<string, unknown>; DeletionPolicy?: string };

const only = (resources: Record<string, unknown>): [string, Resource] => {
  const entries = Object.entries(resources) as [string, Resource][];
  expect(entries).toHaveLength(1);
  return entries[0] as [string, Resource];
};

const logicalId = (stack: Stack, fn: { node: { defaultChild?: unknown } }) =>
  stack.getLogicalId(fn.node.defaultChild as CfnFunction);

describe('the dev stage', () => {
  let stack: AdminApiStack;
  let template: Template;
  beforeAll(() => {
    ({ stack, template } = stage('dev'));
  });

  it('serves every route of lib/routes.ts, and nothing else, over payload format 2.0', () => {
    const apiRoutes = Object.values(template.findResources('AWS::ApiGatewayV2::Route')) as Resource[];
    expect(apiRoutes.map((route) => route.Properties.RouteKey).sort()).toEqual(routes.map(routeKey).sort());
    for (const integration of Object.values(template.findResources('AWS::ApiGatewayV2::Integration'))) {
      expect((integration as Resource).Properties).toMatchObject({
        IntegrationType: 'AWS_PROXY',
        PayloadFormatVersion: '2.0',
      });
    }
  });

  it.each(routes.map((route) => [route.operation, route] as const))(
    'routes %s to the function bundled from functions/<operation>.ts',
    (operation, route) => {
      const fn = stack.functions.get(operation);
      expect(fn?.entry).toMatch(new RegExp(`/functions/${operation}\\.ts$`));
      const [, apiRoute] = only(
        template.findResources('AWS::ApiGatewayV2::Route', { Properties: { RouteKey: routeKey(route) } }),
      );
      const integrationId = (
        apiRoute.Properties.Target as { 'Fn::Join': [string, [string, { Ref: string }]] }
      )['Fn::Join'][1][1].Ref;
      const integration = template.toJSON().Resources[integrationId] as Resource;
      expect(integration.Properties.IntegrationUri).toEqual({
        'Fn::GetAtt': [logicalId(stack, fn as NonNullable<typeof fn>), 'Arn'],
      });
    },
  );

  it('runs one function per operation on nodejs24.x, arm64, ESM (index.handler), with its memory and timeout', () => {
    // One per route, the dispatcher, its coordinator, the purge, the webhook relay and sender.
    expect(Object.keys(template.findResources('AWS::Lambda::Function'))).toHaveLength(routes.length + 5);
    for (const route of routes) {
      const { operation } = route;
      const fn = stack.functions.get(operation) as NonNullable<ReturnType<typeof stack.functions.get>>;
      const properties = (template.toJSON().Resources[logicalId(stack, fn)] as Resource).Properties;
      expect(properties).toMatchObject({
        Runtime: 'nodejs24.x',
        Architectures: ['arm64'],
        Handler: 'index.handler',
        MemorySize: memoryMiBOf(route),
        Timeout: timeoutSecondsOf(route),
      });
    }
  });

  it('grants each function exactly the table actions its code uses, on the table and its indexes', () => {
    const tableId = stack.getLogicalId(stack.table.node.defaultChild as never);
    for (const route of routes) {
      const { operation } = route;
      const fn = stack.functions.get(operation) as NonNullable<ReturnType<typeof stack.functions.get>>;
      const roleId = stack.getLogicalId(fn.role?.node.defaultChild as never);
      const policies = Object.values(
        template.findResources('AWS::IAM::Policy', { Properties: { Roles: [{ Ref: roleId }] } }),
      ) as Resource[];
      const statements = policies.flatMap(
        (policy) =>
          (policy.Properties.PolicyDocument as { Statement: { Action: string | string[] }[] }).Statement,
      );
      const actions = [...new Set<string>(route.tableActions)].sort();
      const table = { 'Fn::GetAtt': [tableId, 'Arn'] };
      // A Query may read the indexes too, each named: nothing else may.
      const indexes = ['gsi1', 'gsi2', 'gsi3', 'gsi4'].map((name) => ({
        'Fn::Join': ['', [table, `/index/${name}`]],
      }));
      // CloudFormation takes a lone action as a string. Queueing delivery jobs is granted on the queue alone.
      const tableStatements = statements
        .map((statement) => ({ ...statement, Action: [statement.Action].flat() }))
        .filter((statement) => statement.Action.some((action) => action.startsWith('dynamodb:')));
      expect(tableStatements).toEqual(
        actions.length === 0
          ? []
          : [
              {
                Effect: 'Allow',
                Action: actions,
                Resource: actions.includes('dynamodb:Query') ? [table, ...indexes] : table,
              },
            ],
      );
      // Queueing delivery jobs is granted on the queue alone; reading the unsubscribe key on its secret
      // alone; writing logs on the function's own log group alone.
      const queues = operation === 'send-notification' || operation === 'retry-run' ? 1 : 0;
      const secrets = 'readsUnsubscribeKey' in route ? 1 : 0;
      expect(statements).toHaveLength(tableStatements.length + queues + secrets + 1);
      const logGroupId = (
        (template.toJSON().Resources[logicalId(stack, fn)] as Resource).Properties.LoggingConfig as {
          LogGroup: { Ref: string };
        }
      ).LogGroup.Ref;
      expect(statements).toContainEqual({
        Effect: 'Allow',
        Action: ['logs:CreateLogStream', 'logs:PutLogEvents'],
        Resource: { 'Fn::GetAtt': [logGroupId, 'Arn'] },
      });
      // No AWS managed policy (the basic execution role's reaches every log group): only the stack's X-Ray one.
      const role = template.toJSON().Resources[roleId] as Resource;
      expect(role.Properties.ManagedPolicyArns).toEqual([{ Ref: expect.stringMatching(/^TraceWriting/) }]);
    }
  });

  it("gives every function the stage's configuration, which lib/config.ts accepts", () => {
    const dev = loadStage('dev').stage;
    const tableId = stack.getLogicalId(stack.table.node.defaultChild as never);
    for (const fn of Object.values(template.findResources('AWS::Lambda::Function')) as Resource[]) {
      const {
        DELIVERY_QUEUE_URL: _,
        UNSUBSCRIBE_SECRET_ARN: __,
        PUBLIC_BASE_URL: ___,
        DISPATCH_WORKER_FUNCTION: _worker,
        WEBHOOK_QUEUE_URL: _webhookQueue,
        ...withExtension
      } = (fn.Properties.Environment as { Variables: Record<string, unknown> }).Variables;
      // The secrets extension's own settings, on the functions that read the unsubscribe key.
      const variables = Object.fromEntries(
        Object.entries(withExtension).filter(
          ([name]) => !/^(PARAMETERS_SECRETS|SECRETS_MANAGER|SSM_PARAMETER_STORE)_/.test(name),
        ),
      );
      expect(variables).toEqual({
        TABLE_NAME: { Ref: tableId },
        EMBED_AUDIENCE: dev.embedAudience,
        CUSTOM_CRON_MIN_INTERVAL_MINUTES: String(dev.customCronMinIntervalMinutes),
        TRUSTED_ISSUERS: JSON.stringify(dev.trustedIssuers),
        LOG_LEVEL: dev.logLevel,
        PRINCIPAL_CACHE_SECONDS: String(dev.principalCacheSeconds),
        EMBED_KEYS_CACHE_SECONDS: String(dev.embedKeysCacheSeconds),
        RUN_RETENTION_DAYS: String(dev.runRetentionDays),
      });
      const config = readConfig({ ...variables, TABLE_NAME: dev.tableName } as NodeJS.ProcessEnv);
      expect(config.trustedIssuers.map((issuer) => issuer.kind).sort()).toEqual(['console', 'platform']);
    }
  });

  it('makes a per-stage unsubscribe signing key and lets only the functions that sign or check links read it', () => {
    const secretId = stack.getLogicalId(stack.unsubscribeKey.node.defaultChild as never);
    template.hasResourceProperties('AWS::SecretsManager::Secret', {
      GenerateSecretString: { PasswordLength: 64, ExcludePunctuation: true },
    });
    const readers = [
      ...routes
        .filter((route) => 'readsUnsubscribeKey' in route)
        .map(({ operation }) => stack.functions.get(operation)),
      stack.scheduler.dispatcher,
    ];
    expect(readers.map((fn) => fn?.node.id).sort()).toEqual([
      'dispatch',
      'get-unsubscribe-page',
      'retry-run',
      'send-notification',
      'unsubscribe',
    ]);
    for (const fn of [...stack.functions.values(), stack.scheduler.dispatcher]) {
      const properties = (template.toJSON().Resources[logicalId(stack, fn)] as Resource).Properties;
      const variables = (properties.Environment as { Variables: Record<string, unknown> }).Variables;
      const roleId = stack.getLogicalId(fn.role?.node.defaultChild as never);
      const policies = JSON.stringify(
        template.findResources('AWS::IAM::Policy', { Properties: { Roles: [{ Ref: roleId }] } }),
      );
      const layers = JSON.stringify(properties.Layers ?? []);
      if (readers.includes(fn)) {
        expect(variables.UNSUBSCRIBE_SECRET_ARN).toEqual({ Ref: secretId });
        // Read through AWS's Parameters and Secrets extension (arm64), not a bundled SDK client.
        expect(layers).toMatch(/Paramsandsecrets.*arm64/);
        // Unsubscribe links point at the stage's own API URL.
        expect(JSON.stringify(variables.PUBLIC_BASE_URL)).toContain('.execute-api.');
        expect(policies).toContain('secretsmanager:GetSecretValue');
        expect(policies).toContain(secretId);
      } else {
        expect(variables.UNSUBSCRIBE_SECRET_ARN).toBeUndefined();
        expect(policies).not.toContain('secretsmanager:');
        expect(layers).not.toMatch(/Paramsandsecrets/i);
      }
    }
  });

  it('serves the outcome report from a function of its own, with its own role and table actions only', () => {
    const fn = stack.functions.get('report-delivery-outcome');
    const roleId = stack.getLogicalId(fn?.role?.node.defaultChild as never);
    const others = [...stack.functions.entries()].filter(
      ([operation]) => operation !== 'report-delivery-outcome',
    );
    for (const [, other] of others)
      expect(stack.getLogicalId(other.role?.node.defaultChild as never)).not.toBe(roleId);
    const policies = JSON.stringify(
      template.findResources('AWS::IAM::Policy', { Properties: { Roles: [{ Ref: roleId }] } }),
    );
    expect(policies).toContain('dynamodb:UpdateItem');
    expect(policies).not.toContain('sqs:');
    expect(policies).not.toContain('secretsmanager:');
  });

  it('writes each function to a log group of its own with the stage retention, deleted with the stack', () => {
    const groups = template.findResources('AWS::Logs::LogGroup');
    for (const fn of Object.values(template.findResources('AWS::Lambda::Function')) as Resource[]) {
      const groupId = (fn.Properties.LoggingConfig as { LogGroup: { Ref: string } }).LogGroup.Ref;
      expect(groups[groupId]).toMatchObject({
        Properties: { RetentionInDays: RetentionDays.ONE_WEEK },
        DeletionPolicy: 'Delete',
      });
    }
  });

  it('declares the single table of docs/data-model.md: pk/sk strings, four sparse indexes, on demand, PITR', () => {
    const [, table] = only(template.findResources('AWS::DynamoDB::Table'));
    const indexNames = ['gsi1', 'gsi2', 'gsi3', 'gsi4'];
    // gsi4's entries are joined to their notifications by key: keys alone are copied.
    const projections: Record<string, string> = { gsi4: 'KEYS_ONLY' };
    expect(table.Properties).toEqual({
      TableName: 'notification-admin-dev',
      AttributeDefinitions: [
        { AttributeName: 'pk', AttributeType: 'S' },
        { AttributeName: 'sk', AttributeType: 'S' },
        ...indexNames.flatMap((name) => [
          { AttributeName: `${name}pk`, AttributeType: 'S' },
          { AttributeName: `${name}sk`, AttributeType: 'S' },
        ]),
      ],
      KeySchema: [
        { AttributeName: 'pk', KeyType: 'HASH' },
        { AttributeName: 'sk', KeyType: 'RANGE' },
      ],
      GlobalSecondaryIndexes: indexNames.map((name) => ({
        IndexName: name,
        KeySchema: [
          { AttributeName: `${name}pk`, KeyType: 'HASH' },
          { AttributeName: `${name}sk`, KeyType: 'RANGE' },
        ],
        Projection: { ProjectionType: projections[name] ?? 'ALL' },
      })),
      TimeToLiveSpecification: { AttributeName: 'expiresAt', Enabled: true },
      BillingMode: 'PAY_PER_REQUEST',
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
      DeletionProtectionEnabled: false,
    });
  });

  it('adds the indexes one deploy at a time when asked (CloudFormation creates one per update)', () => {
    const app = new App({ context: { stage: 'dev', indexes: '1', 'aws:cdk:bundling-stacks': [] } });
    const [, table] = only(Template.fromStack(addStageStack(app)).findResources('AWS::DynamoDB::Table'));
    expect(
      (table.Properties.GlobalSecondaryIndexes as { IndexName: string }[]).map((i) => i.IndexName),
    ).toEqual(['gsi1']);
  });

  it('lets a dev stage be torn down with its table', () => {
    template.hasResource('AWS::DynamoDB::Table', { DeletionPolicy: 'Delete', UpdateReplacePolicy: 'Delete' });
  });

  it('throttles the $default stage as configured and logs every request', () => {
    template.hasResourceProperties('AWS::ApiGatewayV2::Stage', {
      StageName: '$default',
      AutoDeploy: true,
      DefaultRouteSettings: { ThrottlingRateLimit: 20, ThrottlingBurstLimit: 40 },
    });
    const [, stage] = only(template.findResources('AWS::ApiGatewayV2::Stage'));
    const format = JSON.parse((stage.Properties.AccessLogSettings as { Format: string }).Format);
    expect(format.requestId).toBe('$context.requestId');
  });

  it('answers CORS preflights for the configured origins only, with the methods of the routes', () => {
    template.hasResourceProperties('AWS::ApiGatewayV2::Api', {
      CorsConfiguration: {
        AllowOrigins: loadStage('dev').stage.corsAllowOrigins,
        AllowMethods: ['PUT', 'POST', 'PATCH', 'GET', 'DELETE'],
        AllowHeaders: ['authorization', 'content-type', 'idempotency-key'],
      },
    });
  });

  it('alarms on the 5xx rate, throttling, the dispatcher and dead letters, to one SNS topic', () => {
    // The purge's and the webhooks' own alarms, and the coordinator's dead-letter one, are held by their own tests.
    const purgeAlarms = [
      ...stack.purge.alarms,
      ...stack.webhooks.alarms,
      ...stack.scheduler.alarms.slice(1),
    ].map((alarm) => stack.getLogicalId(alarm.node.defaultChild as never));
    const alarms = Object.entries(template.findResources('AWS::CloudWatch::Alarm'))
      .filter(([id]) => !purgeAlarms.includes(id))
      .map(([, alarm]) => alarm) as Resource[];
    // An alarm's math may use at most 10 metrics: the functions' throttles (the routes', the
    // dispatcher's and its coordinator's) take one alarm per 10.
    const functionAlarms = Math.ceil((routes.length + 2) / 10);
    // Plus the 5xx rate, the table's throttling, dispatch failures, dispatcher errors, dispatch
    // starts, dead letters, the failed-delivery rate and runs stuck awaiting outcomes.
    expect(alarms).toHaveLength(9 + functionAlarms);
    const topic = logicalId(stack, { node: { defaultChild: stack.monitoring.alarmTopic.node.defaultChild } });
    for (const alarm of alarms) {
      expect(alarm.Properties).toMatchObject({
        AlarmActions: [{ Ref: topic }],
        TreatMissingData: 'notBreaching',
        ComparisonOperator: 'GreaterThanThreshold',
      });
    }
    const metricsOf = (alarm: Resource) => JSON.stringify(alarm.Properties.Metrics);
    const measuring = (metricName: string) =>
      alarms.find((alarm) => JSON.stringify(alarm.Properties).includes(`"MetricName":"${metricName}"`));
    const dispatchFailures = measuring('DispatchFailures');
    const dispatcherErrors = alarms.find((alarm) => alarm.Properties.MetricName === 'Errors');
    const dispatchStarts = measuring('AsyncEventsDropped');
    expect(dispatchFailures?.Properties).toMatchObject({ Threshold: 0, EvaluationPeriods: 3 });
    expect(JSON.stringify(dispatchFailures?.Properties)).toContain('"Value":"dispatch"');
    expect(JSON.stringify(dispatcherErrors?.Properties)).toContain(
      stack.getLogicalId(stack.scheduler.dispatcher.node.defaultChild as never),
    );
    const failedDeliveries = measuring('DeliveriesFailed') as Resource;
    expect(failedDeliveries.Properties.Threshold).toBe(10);
    expect(metricsOf(failedDeliveries)).toContain('"MetricName":"DeliveriesDelivered"');
    expect(metricsOf(failedDeliveries)).toContain('"Value":"report-delivery-outcome"');
    const stuckRuns = measuring('RunsAwaitingOutcomesOverAnHour') as Resource;
    expect(stuckRuns.Properties).toMatchObject({ Threshold: 0, EvaluationPeriods: 1 });
    expect(JSON.stringify(stuckRuns.Properties)).toContain('"Maximum"');
    const [rate, tableThrottles, ...functionThrottles] = alarms.filter(
      (alarm) =>
        alarm.Properties.Namespace !== 'AWS/SQS' &&
        ![dispatchFailures, dispatcherErrors, dispatchStarts, failedDeliveries, stuckRuns].includes(alarm),
    );
    expect(rate?.Properties.Threshold).toBe(5);
    expect(metricsOf(rate as Resource)).toContain('"MetricName":"5xx"');
    expect(metricsOf(rate as Resource)).toContain('"MetricName":"Count"');
    for (const operation of [
      'GetItem',
      'UpdateItem',
      'PutItem',
      'BatchGetItem',
      'BatchWriteItem',
      'TransactWriteItems',
    ]) {
      expect(metricsOf(tableThrottles as Resource)).toContain(`"Value":"${operation}"`);
    }
    expect(metricsOf(tableThrottles as Resource)).toContain('"MetricName":"ThrottledRequests"');
    expect(
      functionThrottles.flatMap((alarm) => metricsOf(alarm).match(/"MetricName":"Throttles"/g) ?? []),
    ).toHaveLength(routes.length + 2);
    const deadLetters = alarms.find((alarm) => alarm.Properties.Namespace === 'AWS/SQS') as Resource;
    expect(deadLetters.Properties).toMatchObject({
      MetricName: 'ApproximateNumberOfMessagesVisible',
      Namespace: 'AWS/SQS',
      Threshold: 0,
      Dimensions: [
        {
          Name: 'QueueName',
          Value: {
            'Fn::GetAtt': [
              stack.getLogicalId(stack.scheduler.deadLetterQueue.node.defaultChild as never),
              'QueueName',
            ],
          },
        },
      ],
    });
  });

  it('draws a dashboard of the per-operation metrics the functions emit', () => {
    const [, dashboard] = only(template.findResources('AWS::CloudWatch::Dashboard'));
    const body = JSON.stringify(dashboard.Properties.DashboardBody);
    for (const metric of [
      'Responses5xx',
      'Responses4xx',
      'Latency',
      'RecipientsCreated',
      'RecipientsUpdated',
      'RunsCreated',
      'DeliveriesQueued',
      'DeliveriesSkipped',
      'InstantsMissed',
      'DispatchFailures',
      'DispatchHandedOn',
      'DispatchLeft',
      'DeliveriesDelivered',
      'DeliveriesFailed',
      'DeliveriesRetried',
      'RunDeliveriesDelivered',
      'RunDeliveriesFailed',
      'RunsAwaitingOutcomesOverAnHour',
    ]) {
      expect(body).toContain(metric);
    }
    for (const route of routes) expect(body).toContain(route.operation);
  });

  it('outputs the API URL, the table name, the alarm topic, the delivery queues and what a renderer needs', () => {
    const outputs = template.toJSON().Outputs;
    expect(Object.keys(outputs).sort()).toEqual([
      'AlarmTopicArn',
      'ApiUrl',
      'DeliveryDeadLetterQueueName',
      'DeliveryOutcomeUrl',
      'DeliveryQueueArn',
      'DeliveryQueueName',
      'DeliveryQueueUrl',
      'DispatchDeadLetterQueueName',
      'PurgeDeadLetterQueueName',
      'RendererTokenIssuers',
      'TableName',
      'WebhookQueueName',
    ]);
    // What a renderer needs: where to report outcomes, and which issuer its tokens must come from.
    expect(JSON.stringify(outputs.DeliveryOutcomeUrl.Value)).toContain('v1/deliveries/{jobId}/outcome');
    expect(outputs.RendererTokenIssuers.Value).toBe(
      'https://platform.dev.example.com (aud notification-admin-api)',
    );
    const queueId = stack.getLogicalId(stack.scheduler.queue.node.defaultChild as never);
    const deadLetterId = stack.getLogicalId(stack.scheduler.deadLetterQueue.node.defaultChild as never);
    expect(outputs.DeliveryQueueUrl.Value).toEqual({ Ref: queueId });
    expect(outputs.DeliveryQueueName.Value).toEqual({ 'Fn::GetAtt': [queueId, 'QueueName'] });
    expect(outputs.DeliveryDeadLetterQueueName.Value).toEqual({ 'Fn::GetAtt': [deadLetterId, 'QueueName'] });
    expect(JSON.stringify(outputs.ApiUrl.Value)).toContain('.execute-api.');
    expect(outputs.TableName.Value).toEqual({
      Ref: stack.getLogicalId(stack.table.node.defaultChild as never),
    });
  });
});

describe('the prod stage', () => {
  let template: Template;
  beforeAll(() => {
    ({ template } = stage('prod'));
  });

  it('keeps the table whatever happens to the stack: deletion protection, RETAIN, PITR', () => {
    template.hasResource('AWS::DynamoDB::Table', {
      DeletionPolicy: 'Retain',
      UpdateReplacePolicy: 'Retain',
      Properties: {
        TableName: 'notification-admin-prod',
        DeletionProtectionEnabled: true,
        PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
      },
    });
  });

  it('keeps the logs too, for three months', () => {
    for (const group of Object.values(template.findResources('AWS::Logs::LogGroup')) as Resource[]) {
      expect(group).toMatchObject({
        DeletionPolicy: 'Retain',
        Properties: { RetentionInDays: RetentionDays.THREE_MONTHS },
      });
    }
  });

  it('sends no CORS headers when no origin is configured', () => {
    const [, api] = only(stage('prod').template.findResources('AWS::ApiGatewayV2::Api'));
    expect(api.Properties).not.toHaveProperty('CorsConfiguration');
  });

  it('logs at info, not debug', () => {
    for (const fn of Object.values(template.findResources('AWS::Lambda::Function')) as Resource[]) {
      expect(fn.Properties.Environment).toMatchObject({ Variables: { LOG_LEVEL: 'info' } });
    }
  });
});

describe('the scheduler of the dev stage', () => {
  let stack: AdminApiStack;
  let template: Template;
  beforeAll(() => {
    ({ stack, template } = stage('dev'));
  });

  it('starts the coordinator every minute, retrying a failed start; it may start the dispatcher and count the due index', () => {
    const otherRules = [stack.purge.rule, stack.webhooks.rule].map((other) =>
      stack.getLogicalId(other.node.defaultChild as never),
    );
    const [, rule] = only(
      Object.fromEntries(
        Object.entries(template.findResources('AWS::Events::Rule')).filter(
          ([id]) => !otherRules.includes(id),
        ),
      ),
    );
    const dispatcherId = stack.getLogicalId(stack.scheduler.dispatcher.node.defaultChild as never);
    const coordinatorId = stack.getLogicalId(stack.scheduler.coordinator.node.defaultChild as never);
    expect(rule.Properties).toMatchObject({
      ScheduleExpression: 'rate(1 minute)',
      State: 'ENABLED',
    });
    const targets = rule.Properties.Targets as { Arn: unknown; RetryPolicy: unknown }[];
    expect(targets).toHaveLength(1);
    expect(targets[0]?.Arn).toEqual({ 'Fn::GetAtt': [coordinatorId, 'Arn'] });
    expect(targets[0]?.RetryPolicy).toEqual({ MaximumRetryAttempts: 2, MaximumEventAgeInSeconds: 120 });
    template.hasResourceProperties('AWS::Lambda::Permission', {
      Action: 'lambda:InvokeFunction',
      Principal: 'events.amazonaws.com',
      FunctionName: { 'Fn::GetAtt': [coordinatorId, 'Arn'] },
    });
    const resources = template.toJSON().Resources;
    expect((resources[dispatcherId] as Resource).Properties).toMatchObject({
      Runtime: 'nodejs24.x',
      Timeout: DISPATCHER_TIMEOUT_SECONDS,
      Environment: {
        Variables: {
          DELIVERY_QUEUE_URL: { Ref: stack.getLogicalId(stack.scheduler.queue.node.defaultChild as never) },
        },
      },
    });
    expect((resources[coordinatorId] as Resource).Properties).toMatchObject({
      Timeout: COORDINATOR_TIMEOUT_SECONDS,
      Environment: { Variables: { DISPATCH_WORKER_FUNCTION: { Ref: dispatcherId } } },
    });
    const roleOf = (fn: { role?: { node: { defaultChild?: unknown } } }) =>
      stack.getLogicalId(fn.role?.node.defaultChild as never);
    const coordinatorPolicy = JSON.stringify(
      Object.values(
        template.findResources('AWS::IAM::Policy', {
          Properties: { Roles: [{ Ref: roleOf(stack.scheduler.coordinator) }] },
        }),
      ).map((policy) => (policy as Resource).Properties.PolicyDocument),
    );
    // Counting the due index, starting the dispatcher and settling stalled runs (a suspension they make
    // puts or deletes the hold entry, and puts its audit event): nothing else.
    expect(coordinatorPolicy).toContain('lambda:InvokeFunction');
    expect(coordinatorPolicy).toContain(dispatcherId);
    for (const action of COORDINATOR_TABLE_ACTIONS) expect(coordinatorPolicy).toContain(action);
    for (const action of ['BatchWriteItem', 'BatchGetItem', 'Scan', 'sqs:SendMessage'])
      expect(coordinatorPolicy).not.toContain(action);
  });

  it('does not run a failed worker again, and alarms when the coordinator fails or is not started, or a worker start is dropped', () => {
    const dispatcherId = stack.getLogicalId(stack.scheduler.dispatcher.node.defaultChild as never);
    const [, invokeConfig] = only(template.findResources('AWS::Lambda::EventInvokeConfig'));
    expect(invokeConfig.Properties).toMatchObject({
      FunctionName: { Ref: dispatcherId },
      MaximumRetryAttempts: 0,
      MaximumEventAgeInSeconds: 60,
    });
    const alarms = Object.values(template.findResources('AWS::CloudWatch::Alarm')) as Resource[];
    const starts = alarms.filter((alarm) => JSON.stringify(alarm.Properties).includes('AsyncEventsDropped'));
    expect(starts).toHaveLength(1);
    const { Properties: alarm } = starts[0] as Resource;
    expect(alarm).toMatchObject({
      Threshold: 0,
      EvaluationPeriods: 1,
      ComparisonOperator: 'GreaterThanThreshold',
      TreatMissingData: 'notBreaching',
      AlarmActions: [{ Ref: stack.getLogicalId(stack.monitoring.alarmTopic.node.defaultChild as never) }],
    });
    const metrics = alarm.Metrics as {
      Id: string;
      Expression?: string;
      MetricStat?: { Metric: { MetricName: string; Namespace: string; Dimensions: unknown[] } };
    }[];
    const expression = metrics.find((metric) => metric.Expression)?.Expression ?? '';
    const watched = metrics.flatMap(({ Id, MetricStat }) =>
      MetricStat ? [{ Id, ...MetricStat.Metric }] : [],
    );
    // Each metric counts in the sum the alarm compares.
    for (const { Id } of watched) expect(expression).toContain(Id);
    const coordinatorId = stack.getLogicalId(stack.scheduler.coordinator.node.defaultChild as never);
    const ruleId = stack.getLogicalId(stack.scheduler.rule.node.defaultChild as never);
    expect(watched.map(({ Id: _, ...metric }) => metric)).toEqual(
      expect.arrayContaining([
        {
          Namespace: 'AWS/Events',
          MetricName: 'FailedInvocations',
          Dimensions: [{ Name: 'RuleName', Value: { Ref: ruleId } }],
        },
        {
          Namespace: 'AWS/Lambda',
          MetricName: 'Errors',
          Dimensions: [{ Name: 'FunctionName', Value: { Ref: coordinatorId } }],
        },
        {
          Namespace: 'AWS/Lambda',
          MetricName: 'AsyncEventsDropped',
          Dimensions: [{ Name: 'FunctionName', Value: { Ref: dispatcherId } }],
        },
      ]),
    );
    expect(watched).toHaveLength(3);
  });

  it('takes messages of 1 MiB, the most SQS allows, on the delivery queue and its dead-letter queue', () => {
    const resources = template.toJSON().Resources;
    for (const queue of [stack.scheduler.queue, stack.scheduler.deadLetterQueue]) {
      const id = stack.getLogicalId(queue.node.defaultChild as never);
      expect(resources[id].Properties.MaximumMessageSize).toBe(1_048_576);
    }
    expect(SQS_MESSAGE_MAX_BYTES).toBe(1_048_576);
  });

  it('queues delivery jobs on an encrypted queue whose failures go to a dead-letter queue', () => {
    const queueId = stack.getLogicalId(stack.scheduler.queue.node.defaultChild as never);
    const deadLetterId = stack.getLogicalId(stack.scheduler.deadLetterQueue.node.defaultChild as never);
    const resources = template.toJSON().Resources;
    expect(resources[queueId].Properties).toMatchObject({
      QueueName: 'notification-delivery-jobs-dev',
      SqsManagedSseEnabled: true,
      RedrivePolicy: {
        deadLetterTargetArn: { 'Fn::GetAtt': [deadLetterId, 'Arn'] },
        maxReceiveCount: MAX_RECEIVE_COUNT,
      },
    });
    expect(resources[deadLetterId].Properties).toMatchObject({
      QueueName: 'notification-delivery-jobs-dlq-dev',
      MessageRetentionPeriod: 14 * 24 * 3600,
    });
  });

  it('lets the dispatcher, send-now and retry, and nothing else, send to the queue; the dispatcher reads the due index', () => {
    const queueId = stack.getLogicalId(stack.scheduler.queue.node.defaultChild as never);
    const senders = Object.values(template.findResources('AWS::IAM::Policy'))
      .filter((policy) => {
        const document = JSON.stringify((policy as Resource).Properties.PolicyDocument);
        return document.includes('sqs:SendMessage') && document.includes(queueId);
      })
      .flatMap((policy) =>
        ((policy as Resource).Properties.Roles as { Ref: string }[]).map((role) => role.Ref),
      )
      .sort();
    const roleOf = (fn: { role?: { node: { defaultChild?: unknown } } }) =>
      stack.getLogicalId(fn.role?.node.defaultChild as never);
    expect(senders).toEqual(
      [
        roleOf(stack.scheduler.dispatcher),
        roleOf(stack.functions.get('send-notification') as never),
        roleOf(stack.functions.get('retry-run') as never),
      ].sort(),
    );
    const dispatcherPolicy = Object.values(
      template.findResources('AWS::IAM::Policy', {
        Properties: { Roles: [{ Ref: roleOf(stack.scheduler.dispatcher) }] },
      }),
    ) as Resource[];
    const document = JSON.stringify(dispatcherPolicy.map((policy) => policy.Properties.PolicyDocument));
    for (const action of DISPATCHER_TABLE_ACTIONS) expect(document).toContain(action);
    expect(document).toContain('/index/gsi3');
    expect(document).toContain(queueId);
  });
});

describe('the webhooks of the dev stage', () => {
  let stack: AdminApiStack;
  let template: Template;
  beforeAll(() => {
    ({ stack, template } = stage('dev'));
  });

  it('relays due messages every minute to a queue with a dead-letter queue, which the sender takes ten at a time', () => {
    const id = (construct: { node: { defaultChild?: unknown } }) =>
      stack.getLogicalId(construct.node.defaultChild as never);
    const resources = template.toJSON().Resources;
    expect(resources[id(stack.webhooks.rule)].Properties).toMatchObject({
      ScheduleExpression: 'rate(1 minute)',
      Targets: [
        {
          Arn: { 'Fn::GetAtt': [id(stack.webhooks.relay), 'Arn'] },
          DeadLetterConfig: { Arn: { 'Fn::GetAtt': [id(stack.webhooks.deadLetterQueue), 'Arn'] } },
        },
      ],
    });
    expect(resources[id(stack.webhooks.queue)].Properties).toMatchObject({
      RedrivePolicy: { deadLetterTargetArn: { 'Fn::GetAtt': [id(stack.webhooks.deadLetterQueue), 'Arn'] } },
    });
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      FunctionName: { Ref: id(stack.webhooks.sender) },
      BatchSize: 10,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
    });
    expect(resources[id(stack.webhooks.relay)].Properties.Environment.Variables.WEBHOOK_QUEUE_URL).toEqual({
      Ref: id(stack.webhooks.queue),
    });
  });

  it('alarms on failing endpoints, the oldest waiting message and dead letters', () => {
    const descriptions = stack.webhooks.alarms.map(
      (alarm) => template.toJSON().Resources[stack.getLogicalId(alarm.node.defaultChild as never)].Properties,
    );
    expect(descriptions).toEqual([
      expect.objectContaining({ MetricName: 'FailedAttempts', Namespace: 'NotificationAdmin/Webhooks' }),
      expect.objectContaining({ MetricName: 'ApproximateAgeOfOldestMessage', Threshold: 600 }),
      expect.objectContaining({ MetricName: 'ApproximateNumberOfMessagesVisible', Threshold: 0 }),
    ]);
    for (const alarm of descriptions) expect(alarm.AlarmActions).toHaveLength(1);
  });
});

describe('the purge of the dev stage', () => {
  let stack: AdminApiStack;
  let template: Template;
  beforeAll(() => {
    ({ stack, template } = stage('dev'));
  });
  const roleOf = (fn: { role?: { node: { defaultChild?: unknown } } }) =>
    stack.getLogicalId(fn.role?.node.defaultChild as never);

  it('starts the purge every minute, retrying a failed start, and keeps starts that failed every retry', () => {
    const purgeId = stack.getLogicalId(stack.purge.function.node.defaultChild as never);
    const deadLetterId = stack.getLogicalId(stack.purge.deadLetterQueue.node.defaultChild as never);
    const rule = template.toJSON().Resources[stack.getLogicalId(stack.purge.rule.node.defaultChild as never)];
    expect(rule.Properties).toMatchObject({ ScheduleExpression: 'rate(1 minute)', State: 'ENABLED' });
    expect(rule.Properties.Targets).toEqual([
      expect.objectContaining({
        Arn: { 'Fn::GetAtt': [purgeId, 'Arn'] },
        RetryPolicy: { MaximumRetryAttempts: 2, MaximumEventAgeInSeconds: 120 },
        DeadLetterConfig: { Arn: { 'Fn::GetAtt': [deadLetterId, 'Arn'] } },
      }),
    ]);
    expect(template.toJSON().Resources[deadLetterId].Properties).toMatchObject({
      QueueName: 'notification-purge-dlq-dev',
      SqsManagedSseEnabled: true,
      MessageRetentionPeriod: 14 * 24 * 3600,
    });
    expect(template.toJSON().Resources[purgeId].Properties).toMatchObject({
      Runtime: 'nodejs24.x',
      Architectures: ['arm64'],
      Timeout: PURGE_TIMEOUT_SECONDS,
    });
  });

  it('grants the purge only its table actions on the table and its indexes, and nothing of the job queue', () => {
    const policies = Object.values(
      template.findResources('AWS::IAM::Policy', {
        Properties: { Roles: [{ Ref: roleOf(stack.purge.function) }] },
      }),
    ) as Resource[];
    const statements = policies.flatMap(
      (policy) => (policy.Properties.PolicyDocument as { Statement: { Action: unknown }[] }).Statement,
    );
    // Its table actions, and writing its own logs.
    expect(statements.map((statement) => statement.Action)).toEqual(
      expect.arrayContaining([
        [...PURGE_TABLE_ACTIONS].sort(),
        ['logs:CreateLogStream', 'logs:PutLogEvents'],
      ]),
    );
    expect(statements).toHaveLength(2);
    expect(JSON.stringify(statements)).toContain('/index/gsi1');
    expect(JSON.stringify(statements)).not.toContain('sqs:');
  });

  it('alarms when passes keep failing and when starts land in the dead-letter queue', () => {
    const resources = template.toJSON().Resources;
    const topic = stack.getLogicalId(stack.monitoring.alarmTopic.node.defaultChild as never);
    const [failing, lost] = stack.purge.alarms.map(
      (alarm) => resources[stack.getLogicalId(alarm.node.defaultChild as never)].Properties,
    );
    expect(failing).toMatchObject({
      MetricName: 'Errors',
      Namespace: 'AWS/Lambda',
      Dimensions: [
        {
          Name: 'FunctionName',
          Value: { Ref: stack.getLogicalId(stack.purge.function.node.defaultChild as never) },
        },
      ],
      EvaluationPeriods: 3,
      Threshold: 0,
      AlarmActions: [{ Ref: topic }],
    });
    expect(lost).toMatchObject({
      MetricName: 'ApproximateNumberOfMessagesVisible',
      Namespace: 'AWS/SQS',
      Threshold: 0,
      AlarmActions: [{ Ref: topic }],
    });
  });

  it('runs no function that writes into a partition longer than the purge keeps sweeping after a delete', () => {
    const timeouts = Object.values(template.findResources('AWS::Lambda::Function')).map(
      (fn) => (fn as Resource).Properties.Timeout as number,
    );
    expect(Math.max(...timeouts)).toBeLessThanOrEqual(LONGEST_WRITER_SECONDS);
    expect(PURGE_GRACE_MS).toBeGreaterThan(LONGEST_WRITER_SECONDS * 1000);
  });
});

describe('the template as sam local reads it', () => {
  it("names each function's code asset in its metadata, as the CDK CLI synthesizes it", () => {
    // The CLI sets this context; `sam local invoke <operation>` finds the bundle through this metadata.
    const app = new App({
      context: { stage: 'dev', 'aws:cdk:bundling-stacks': [], 'aws:cdk:enable-asset-metadata': true },
    });
    const template = Template.fromStack(addStageStack(app));
    const functions = Object.values(template.findResources('AWS::Lambda::Function')) as (Resource & {
      Metadata?: Record<string, string>;
    })[];
    expect(functions).toHaveLength(routes.length + 5);
    for (const fn of functions) {
      // With bundling skipped the path is a placeholder; a real synth names `asset.<hash>` in cdk.out.
      expect(fn.Metadata?.['aws:asset:path']).toEqual(expect.any(String));
      expect(fn.Metadata?.['aws:asset:property']).toBe('Code');
      expect(fn.Properties).toMatchObject({ Handler: 'index.handler', Runtime: 'nodejs24.x' });
    }
  });
});

describe('stage selection', () => {
  it('refuses a stage without a settings file, naming the stages that have one', () => {
    expect(() => synth('staging')).toThrow(StageConfigError);
    expect(() => synth('staging')).toThrow(/Unknown stage "staging".*-c stage=<name>, one of: dev$/);
  });

  it('points a stage with only a template at copying it', () => {
    expect(() => synth('prod')).toThrow(
      /no settings file .*cdk\/stages\/prod\.json; copy .*prod\.example\.json/,
    );
  });

  it('refuses a synth without a stage', () => {
    const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
    expect(() => addStageStack(app)).toThrow(/No stage selected.*one of: dev$/);
  });

  it('names the stack after the stage, so stages deploy side by side', () => {
    expect(stage('dev').stack.stackName).toBe('NotificationAdmin-dev');
    expect(stage('prod').stack.stackName).toBe('NotificationAdmin-prod');
  });
});
