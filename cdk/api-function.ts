import { Duration, type RemovalPolicy } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { Architecture, type ParamsAndSecretsLayerVersion, Runtime } from 'aws-cdk-lib/aws-lambda';
import { type BundlingOptions, NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import type { TableAction } from '#lib/routes';
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
};

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
}

/**
 * A Lambda function of this API with the house defaults: Node.js 24 on arm64, one minified ESM
 * bundle with source maps and the AWS SDK inside, and a log group of its own whose retention is
 * set here rather than by a custom resource after the fact.
 */
export class ApiFunction extends NodejsFunction {
  readonly entry: string;

  constructor(scope: Construct, id: string, props: ApiFunctionProps) {
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
      logGroup: new LogGroup(scope, `${id}Logs`, {
        retention: props.logRetention,
        removalPolicy: props.logRemovalPolicy,
      }),
    });
    this.entry = props.entry;
  }

  /** Grants exactly `actions` on the table (and its indexes, for a Query) and tells the code its name. */
  bindTable(table: ITable, actions: readonly TableAction[]): void {
    this.addEnvironment('TABLE_NAME', table.tableName);
    if (actions.length === 0) return;
    this.addToRolePolicy(
      new PolicyStatement({
        actions: [...new Set(actions)].sort(),
        resources: actions.includes('dynamodb:Query')
          ? [table.tableArn, `${table.tableArn}/index/*`]
          : [table.tableArn],
      }),
    );
  }
}
