import { Duration, type RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { ManagedPolicy, PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import {
  Architecture,
  type CfnFunction,
  type ParamsAndSecretsLayerVersion,
  Runtime,
  Tracing,
} from 'aws-cdk-lib/aws-lambda';
import { type BundlingOptions, LogLevel, NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import type { TableAction } from '#lib/routes';
import { globalSecondaryIndexes } from '#lib/store/dynamo/table-definition';
import { bundlingSettings } from './bundling.ts';

/** cdk/bundling.ts in NodejsFunction's terms: the benchmark builds the same bundles from the same settings. */
const functionBundling: BundlingOptions = {
  format: bundlingSettings.format === 'esm' ? OutputFormat.ESM : OutputFormat.CJS,
  target: bundlingSettings.target,
  minify: bundlingSettings.minify,
  sourceMap: bundlingSettings.sourcemap,
  sourcesContent: bundlingSettings.sourcesContent,
  mainFields: [...bundlingSettings.mainFields],
  banner: bundlingSettings.banner,
  // Empty, not absent: NodejsFunction would otherwise leave @aws-sdk/* to the runtime's copy.
  externalModules: [...bundlingSettings.externalModules],
  // esbuild is a devDependency; nothing here needs Docker.
  forceDockerBundling: false,
  // Warnings and errors only: not esbuild's table of output files, 22 times over, on every synth.
  logLevel: LogLevel.WARNING,
};

/**
 * The stack's one policy for sending traces to X-Ray, attached to the role of every traced function.
 * Its own policy, not a statement in each role's, so that its acknowledged wildcard covers nothing else.
 */
function traceWriting(scope: Construct): ManagedPolicy {
  const stack = Stack.of(scope);
  const existing = stack.node.tryFindChild('TraceWriting');
  if (existing) return existing as ManagedPolicy;
  const policy = new ManagedPolicy(stack, 'TraceWriting', {
    description: 'Lets a function send its X-Ray trace segments',
    statements: [
      new PolicyStatement({
        actions: ['xray:PutTraceSegments', 'xray:PutTelemetryRecords'],
        resources: ['*'],
      }),
    ],
  });
  Validations.of(policy).acknowledge({
    id: 'AwsSolutions::AwsSolutions-IAM5[Resource::*]',
    reason:
      "X-Ray's PutTraceSegments and PutTelemetryRecords support no resource-level permissions: `*` is the only resource they take",
  });
  return policy;
}

export interface ApiFunctionProps {
  /** The handler module, `functions/<operation>.ts`, exporting `handler`. */
  entry: string;
  description: string;
  memoryMiB: number;
  timeoutSeconds: number;
  environment: Record<string, string>;
  logRetention: RetentionDays;
  /** RETAIN keeps the log group when the stack goes (production); DESTROY removes it with the stack. */
  logRemovalPolicy: RemovalPolicy;
  /** AWS's Parameters and Secrets extension, for a function that reads a secret (lib/secrets/). */
  secretsExtension?: ParamsAndSecretsLayerVersion;
  /** X-Ray active tracing (a stage setting). */
  tracing: boolean;
  /** At most this many instances at once, out of the account's concurrency; without it, unreserved. */
  reservedConcurrency?: number;
}

/**
 * A Lambda function of this API with the house defaults: Node.js 24 on arm64, one minified ESM
 * bundle with source maps and the AWS SDK inside, and a log group of its own whose retention is
 * set here rather than by a custom resource after the fact. Its role starts empty: no managed
 * policy, whose log permissions would reach every log group of the account, but writing to its own.
 */
export class ApiFunction extends NodejsFunction {
  readonly entry: string;

  constructor(scope: Construct, id: string, props: ApiFunctionProps) {
    const logGroup = new LogGroup(scope, `${id}Logs`, {
      retention: props.logRetention,
      removalPolicy: props.logRemovalPolicy,
    });
    const role = new Role(scope, `${id}Role`, {
      assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
      description: `Runs ${id}: its log group, and what bindTable and the stack grant`,
    });
    logGroup.grantWrite(role);
    super(scope, id, {
      entry: props.entry,
      handler: 'handler',
      description: props.description,
      runtime: Runtime.NODEJS_24_X,
      architecture: Architecture.ARM_64,
      memorySize: props.memoryMiB,
      timeout: Duration.seconds(props.timeoutSeconds),
      environment: props.environment,
      bundling: functionBundling,
      paramsAndSecrets: props.secretsExtension,
      reservedConcurrentExecutions: props.reservedConcurrency,
      role,
      logGroup,
    });
    this.entry = props.entry;
    if (props.tracing) {
      // Set here rather than with `tracing`, which would write X-Ray's `*` into the role's own policy.
      (this.node.defaultChild as CfnFunction).tracingConfig = { mode: Tracing.ACTIVE };
      role.addManagedPolicy(traceWriting(scope));
    }
  }

  /**
   * Grants exactly `actions` on the table (and its indexes by name, for a Query: no wildcard) and
   * tells the code its name.
   */
  bindTable(table: ITable, actions: readonly TableAction[]): void {
    this.addEnvironment('TABLE_NAME', table.tableName);
    if (actions.length === 0) return;
    this.addToRolePolicy(
      new PolicyStatement({
        actions: [...new Set(actions)].sort(),
        resources: actions.includes('dynamodb:Query')
          ? [
              table.tableArn,
              ...globalSecondaryIndexes.map((index) => `${table.tableArn}/index/${index.name}`),
            ]
          : [table.tableArn],
      }),
    );
  }
}
