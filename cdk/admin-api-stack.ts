import { fileURLToPath } from 'node:url';
import { CfnOutput, Duration, RemovalPolicy, Stack, type StackProps, Validations } from 'aws-cdk-lib';
import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import {
  CorsHttpMethod,
  HttpApi,
  HttpMethod,
  type HttpRoute,
  HttpStage,
  LogGroupLogDestination,
} from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import { AttributeType, BillingMode, ProjectionType, Table } from 'aws-cdk-lib/aws-dynamodb';
import {
  ParamsAndSecretsLayerVersion,
  ParamsAndSecretsLogLevel,
  ParamsAndSecretsVersions,
} from 'aws-cdk-lib/aws-lambda';
import { LogGroup } from 'aws-cdk-lib/aws-logs';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import type { Construct } from 'constructs';
import { memoryMiBOf, type Operation, type Route, routeKey, routes, timeoutSecondsOf } from '#lib/routes';
import { TIME_TO_LIVE_ATTRIBUTE, tableKeySchema } from '#lib/store/dynamo/keys';
import { globalSecondaryIndexes } from '#lib/store/dynamo/table-definition';
import { ApiFunction } from './api-function.ts';
import { functionEnvironment } from './function-environment.ts';
import { Monitoring } from './monitoring.ts';
import { PURGE_TABLE_ACTIONS, Purge } from './purge.ts';
import { DISPATCHER_TABLE_ACTIONS, Scheduler } from './scheduler.ts';
import type { StageConfig } from './stages.ts';
import { WEBHOOK_RELAY_TABLE_ACTIONS, WEBHOOK_SENDER_TABLE_ACTIONS, Webhooks } from './webhooks.ts';

export interface AdminApiStackProps extends StackProps {
  stage: StageConfig;
}

const FUNCTIONS_DIRECTORY = new URL('../functions/', import.meta.url);

/** HTTP API variables only: the REST API's `$context.identity.caller` and friends fail the deploy. */
const ACCESS_LOG_FORMAT = JSON.stringify({
  requestId: '$context.requestId',
  time: '$context.requestTime',
  routeKey: '$context.routeKey',
  status: '$context.status',
  sourceIp: '$context.identity.sourceIp',
  userAgent: '$context.identity.userAgent',
  responseLength: '$context.responseLength',
  latencyMs: '$context.responseLatency',
  integrationLatencyMs: '$context.integrationLatency',
  integrationError: '$context.integrationErrorMessage',
});

/** A route whose function signs or checks unsubscribe links, and so reads the key. */
const readsUnsubscribeKey = (route: Route) =>
  'readsUnsubscribeKey' in route && route.readsUnsubscribeKey === true;

/** The DynamoDB operations some function calls: the ones whose throttling is watched. */
function throttledTableOperations(): string[] {
  // TransactWriteItems is granted as its PutItem/UpdateItem actions, but throttled under its own name.
  const tableOperations = new Set<string>(['TransactWriteItems']);
  for (const actions of [
    ...routes.map((route) => route.tableActions),
    DISPATCHER_TABLE_ACTIONS,
    PURGE_TABLE_ACTIONS,
    WEBHOOK_RELAY_TABLE_ACTIONS,
    WEBHOOK_SENDER_TABLE_ACTIONS,
  ]) {
    for (const action of actions) tableOperations.add(action.replace('dynamodb:', ''));
  }
  return [...tableOperations];
}

/** What every function of the stage is made with. */
interface FunctionSettings {
  environment: Record<string, string>;
  removalPolicy: RemovalPolicy;
  secretsExtension: ParamsAndSecretsLayerVersion;
  /** The base of the links in messages. */
  publicBaseUrl: string;
}

/**
 * One stage of the API: the table, one function per route of lib/routes.ts, and the HTTP API
 * (payload format 2.0, the event the local adapter builds) routing to them.
 */
export class AdminApiStack extends Stack {
  readonly table: Table;
  readonly api: HttpApi;
  readonly functions = new Map<Operation, ApiFunction>();
  readonly scheduler: Scheduler;
  readonly purge: Purge;
  readonly webhooks: Webhooks;
  readonly monitoring: Monitoring;
  /** The key unsubscribe links are signed with: made by the stack, read by the functions on first use (through the secrets extension). */
  readonly unsubscribeKey: Secret;

  constructor(scope: Construct, id: string, props: AdminApiStackProps) {
    const { stage, ...stackProps } = props;
    super(scope, id, { env: stage.env, ...stackProps });
    const removalPolicy = stage.production ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY;

    this.table = this.createTable(stage, removalPolicy);
    this.api = this.createApi(stage);
    const apiStage = this.createApiStage(stage, removalPolicy);
    this.unsubscribeKey = this.createUnsubscribeKey(stage, removalPolicy);

    const settings: FunctionSettings = {
      environment: functionEnvironment(stage),
      removalPolicy,
      // The functions that read the key do so through AWS's extension, over localhost: no Secrets
      // Manager client in their bundles. Its own log lines only when something is wrong.
      secretsExtension: ParamsAndSecretsLayerVersion.fromVersion(ParamsAndSecretsVersions.V1_0_103, {
        logLevel: ParamsAndSecretsLogLevel.WARN,
      }),
      // Links in messages point at the stage's public address: its custom domain, else the API's own URL.
      publicBaseUrl: stage.publicBaseUrl ?? apiStage.url,
    };
    this.routeFunctions(stage, settings);

    this.scheduler = new Scheduler(this, 'Scheduler', {
      stage,
      table: this.table,
      environment: settings.environment,
      removalPolicy,
      secretsExtension: settings.secretsExtension,
      producers: (['send-notification', 'retry-run'] as const).map(
        (operation) => this.functions.get(operation) as ApiFunction,
      ),
    });
    this.readUnsubscribeKey(this.scheduler.dispatcher, settings.publicBaseUrl);

    const workerProps = { stage, table: this.table, environment: settings.environment, removalPolicy };
    this.purge = new Purge(this, 'Purge', workerProps);
    this.webhooks = new Webhooks(this, 'Webhooks', workerProps);

    this.monitoring = new Monitoring(this, 'Monitoring', {
      stageName: stage.name,
      alarmRecipients: stage.alarms,
      api: this.api,
      table: this.table,
      functions: this.functions,
      dispatcher: this.scheduler.dispatcher,
      coordinator: this.scheduler.coordinator,
      dispatchRule: this.scheduler.rule,
      tableOperations: throttledTableOperations(),
    });
    this.scheduler.alarmTo(this.monitoring.alarmActions);
    this.purge.alarmTo(this.monitoring.alarmActions);
    this.webhooks.alarmTo(this.monitoring.alarmActions);

    this.outputs(stage, apiStage);
  }

  private createTable(stage: StageConfig, removalPolicy: RemovalPolicy): Table {
    const table = new Table(this, 'Table', {
      tableName: stage.tableName,
      partitionKey: { name: tableKeySchema.partitionKey, type: AttributeType.STRING },
      sortKey: { name: tableKeySchema.sortKey, type: AttributeType.STRING },
      billingMode: BillingMode.PAY_PER_REQUEST,
      timeToLiveAttribute: TIME_TO_LIVE_ATTRIBUTE,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      deletionProtection: stage.production,
      removalPolicy,
    });
    // CloudFormation adds one index per update: a table deployed without them gets them over several
    // deploys, `-c indexes=1`, then 2, then 3, then all (docs/deploy.md).
    const indexes = Number(this.node.tryGetContext('indexes') ?? globalSecondaryIndexes.length);
    for (const index of globalSecondaryIndexes.slice(0, indexes)) {
      table.addGlobalSecondaryIndex({
        indexName: index.name,
        partitionKey: { name: index.partitionKey, type: AttributeType.STRING },
        sortKey: { name: index.sortKey, type: AttributeType.STRING },
        projectionType: ProjectionType[index.projection],
      });
    }
    return table;
  }

  private createApi(stage: StageConfig): HttpApi {
    return new HttpApi(this, 'Api', {
      apiName: `notification-admin-${stage.name}`,
      description: `Notification and embedding admin API (${stage.name})`,
      createDefaultStage: false,
      ...(stage.corsAllowOrigins.length > 0 && {
        corsPreflight: {
          allowOrigins: stage.corsAllowOrigins,
          allowMethods: [...new Set(routes.map((route) => CorsHttpMethod[route.method]))],
          allowHeaders: ['authorization', 'content-type', 'idempotency-key'],
          maxAge: Duration.hours(1),
        },
      }),
    });
  }

  private createApiStage(stage: StageConfig, removalPolicy: RemovalPolicy): HttpStage {
    return new HttpStage(this, 'ApiStage', {
      httpApi: this.api,
      stageName: '$default',
      autoDeploy: true,
      throttle: stage.throttle,
      accessLogSettings: {
        destination: new LogGroupLogDestination(
          new LogGroup(this, 'ApiAccessLogs', { retention: stage.logRetention, removalPolicy }),
        ),
        format: AccessLogFormat.custom(ACCESS_LOG_FORMAT),
      },
    });
  }

  private createUnsubscribeKey(stage: StageConfig, removalPolicy: RemovalPolicy): Secret {
    const key = new Secret(this, 'UnsubscribeSigningKey', {
      description: `Signs one-click unsubscribe links (${stage.name})`,
      generateSecretString: { passwordLength: 64, excludePunctuation: true },
      removalPolicy,
    });
    Validations.of(key).acknowledge({
      id: 'AwsSolutions::AwsSolutions-SMG4',
      reason:
        'Rotating the unsubscribe signing key invalidates the one-click links in every message already sent, so it is rotated by hand when it must be (docs/deploy-your-account.md), not on a schedule',
    });
    return key;
  }

  private readUnsubscribeKey(fn: ApiFunction, publicBaseUrl: string): void {
    this.unsubscribeKey.grantRead(fn);
    fn.addEnvironment('UNSUBSCRIBE_SECRET_ARN', this.unsubscribeKey.secretArn);
    fn.addEnvironment('PUBLIC_BASE_URL', publicBaseUrl);
  }

  /** One function per route, granted its table actions, and its route of the API. */
  private routeFunctions(stage: StageConfig, settings: FunctionSettings): void {
    for (const route of routes) {
      const fn = new ApiFunction(this, route.operation, {
        entry: fileURLToPath(new URL(`${route.operation}.ts`, FUNCTIONS_DIRECTORY)),
        description: `${routeKey(route)} (${stage.name})`,
        memoryMiB: memoryMiBOf(route),
        timeoutSeconds: timeoutSecondsOf(route),
        environment: settings.environment,
        logRetention: stage.logRetention,
        logRemovalPolicy: settings.removalPolicy,
        secretsExtension: readsUnsubscribeKey(route) ? settings.secretsExtension : undefined,
        tracing: stage.tracing,
      });
      fn.bindTable(this.table, route.tableActions);
      if (readsUnsubscribeKey(route)) this.readUnsubscribeKey(fn, settings.publicBaseUrl);
      this.routeTo(route, fn);
      this.functions.set(route.operation, fn);
    }
  }

  private routeTo(route: Route, fn: ApiFunction): void {
    const [apiRoute] = this.api.addRoutes({
      path: route.path,
      methods: [HttpMethod[route.method]],
      integration: new HttpLambdaIntegration(`${route.operation}-integration`, fn),
    });
    Validations.of(apiRoute as HttpRoute).acknowledge({
      id: 'AwsSolutions::AwsSolutions-APIG4',
      reason:
        'Each function authenticates its caller itself (API keys, console, platform and embed JWTs, unsubscribe tokens: docs/api.md), which no API Gateway authorizer can express; a route without a credential answers 401',
    });
  }

  private outputs(stage: StageConfig, apiStage: HttpStage): void {
    new CfnOutput(this, 'ApiUrl', { value: apiStage.url, description: 'Base URL of the API' });
    new CfnOutput(this, 'TableName', { value: this.table.tableName, description: 'The DynamoDB table' });
    // What the renderer needs besides the queue: where to report each job's outcome, and as whom.
    new CfnOutput(this, 'DeliveryOutcomeUrl', {
      value: `${apiStage.url}v1/deliveries/{jobId}/outcome`,
      description: 'The renderer POSTs each job outcome here (docs/deliveries.md)',
    });
    new CfnOutput(this, 'RendererTokenIssuers', {
      value: stage.trustedIssuers
        .filter((issuer) => issuer.kind === 'platform')
        .map((issuer) => `${issuer.issuer} (aud ${issuer.audience})`)
        .join(', '),
      description: 'Issuers whose platform JWTs (claim session: screenshot) the outcome route accepts',
    });
  }
}
