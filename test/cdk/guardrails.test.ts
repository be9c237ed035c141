import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { App } from 'aws-cdk-lib';
import { Annotations, Match, Template } from 'aws-cdk-lib/assertions';
import { afterAll, describe, expect, it } from 'vitest';
import { routes } from '#lib/routes';
import { addStageStack } from '../../cdk/admin-api-app.ts';
import { addGuardrailChecks } from '../../cdk/guardrails.ts';
import { RENDERER_QUEUE_ACTIONS } from '../../cdk/scheduler.ts';
import { STAGES_DIRECTORY, StageConfigError } from '../../cdk/stages.ts';

/**
 * What an operator's own account gets checked for at synth: the stage settings (no placeholder, nothing
 * missing), cdk-nag's AwsSolutions rules with nothing unacknowledged, and the guardrails the settings
 * turn on. Each synth is in-process, as `cdk synth` runs it, with bundling skipped.
 */

const PROD_SETTINGS = fileURLToPath(new URL('./stages/prod.json', import.meta.url));
const PROD_TEMPLATE = join(STAGES_DIRECTORY, 'prod.example.json');
const prodSettings = () => JSON.parse(readFileSync(PROD_SETTINGS, 'utf8')) as Record<string, unknown>;

const scratch = mkdtempSync(join(tmpdir(), 'stage-settings-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** A settings file of its own for one test. */
function settingsFile(name: string, settings: unknown): string {
  const path = join(scratch, `${name}.json`);
  writeFileSync(path, typeof settings === 'string' ? settings : JSON.stringify(settings));
  return path;
}

function appFor(stage: string, stageFile?: string): App {
  return new App({
    outdir: mkdtempSync(join(scratch, 'cdk.out-')),
    context: { stage, stageFile, 'aws:cdk:bundling-stacks': [] },
  });
}

type Resource = { Type: string; Properties: Record<string, unknown> };

describe('cdk-nag AwsSolutions at synth', () => {
  it.each([
    ['dev', undefined],
    ['prod', PROD_SETTINGS],
  ])('finds nothing unacknowledged in the %s stage', (stage, stageFile) => {
    const app = appFor(stage, stageFile);
    addStageStack(app);
    addGuardrailChecks(app);
    // A finding that is not acknowledged fails the synth, as it fails `cdk synth`.
    const assembly = app.synth();
    const report = JSON.parse(readFileSync(join(assembly.directory, 'validation-report.json'), 'utf8')) as {
      pluginReports: {
        pluginName: string;
        conclusion: string;
        violations: unknown[];
        suppressedViolations: { ruleName: string }[];
      }[];
    };
    const nag = report.pluginReports.find((plugin) => plugin.pluginName === 'AwsSolutions');
    expect(nag).toMatchObject({ conclusion: 'success', violations: [] });
    // The acknowledged ones, each with its reason in the code next to what it concerns.
    expect([...new Set(nag?.suppressedViolations.map((violation) => violation.ruleName))].sort()).toEqual([
      'AwsSolutions-APIG4',
      'AwsSolutions-IAM5[Resource::*]',
      'AwsSolutions-SMG4',
      'AwsSolutions-SQS3',
    ]);
  });
});

describe('stage settings checked at synth', () => {
  it('fails a prod synth from the template, naming every placeholder still in it', () => {
    const app = appFor('prod', PROD_TEMPLATE);
    const synth = () => addStageStack(app);
    expect(synth).toThrow(StageConfigError);
    for (const setting of [
      'trustedIssuers.0.issuer',
      'trustedIssuers.0.audience',
      'trustedIssuers.1.jwksUri',
      'publicBaseUrl',
      'alarms.emails.0',
      'alarms.topicArn',
      'rendererPrincipals.0',
      'env.account',
    ]) {
      expect(synth).toThrow(new RegExp(`\\n  ${setting.replaceAll('.', '\\.')}: still a placeholder`));
    }
  });

  it.each([
    ['a change-me value', { embedAudience: 'change-me' }, 'embedAudience: still a placeholder'],
    [
      'an example.org host',
      { publicBaseUrl: 'https://api.example.org' },
      'publicBaseUrl: still a placeholder',
    ],
    ['no alarm recipient', { alarms: { emails: [] } }, 'alarms: no e-mail address and no topicArn'],
    ['no renderer', { rendererPrincipals: [] }, 'rendererPrincipals: none'],
    ['a missing setting', { tableName: undefined }, 'tableName: missing'],
    [
      'a malformed principal',
      { rendererPrincipals: ['renderer'] },
      'rendererPrincipals.0: must be an account id',
    ],
    [
      'an issuer key address that is not https',
      {
        trustedIssuers: [
          { kind: 'console', issuer: 'https://idp.acme.io', audience: 'x', jwksUri: 'not a url' },
        ],
      },
      'trustedIssuers.0.jwksUri: must be an https:// URL',
    ],
    [
      'a retention CloudWatch does not offer',
      { logRetentionDays: 45 },
      'logRetentionDays: must be one of 1, 3, 5',
    ],
    ['a misspelt setting', { tracng: false }, 'Unrecognized key: "tracng"'],
    [
      'a cap of no worker',
      { dispatcherReservedConcurrency: 0 },
      'dispatcherReservedConcurrency: must be at least 1',
    ],
  ])('fails a prod synth on %s, naming the setting', (_, change, message) => {
    const file = settingsFile('prod', { ...prodSettings(), ...change });
    expect(() => addStageStack(appFor('prod', file))).toThrow(message);
  });

  it('fails on a settings file that is not JSON, naming the file', () => {
    const file = settingsFile('broken', '{ "production": true,');
    expect(() => addStageStack(appFor('prod', file))).toThrow(
      /Stage "prod": .*broken\.json is not valid JSON/,
    );
  });

  it('refuses a stage name that is not a plain name (no path through -c stage)', () => {
    expect(() => addStageStack(appFor('../prod'))).toThrow(/a stage name is lower-case letters/);
  });

  it('lets the demo dev stage synthesize with its placeholders and no recipients, warning of each', () => {
    const stack = addStageStack(appFor('dev'));
    const warnings = Annotations.fromStack(stack).findWarning('*', Match.stringLikeRegexp('is a demo'));
    const messages = warnings.map((warning) => String(warning.entry.data));
    expect(messages).toEqual(
      expect.arrayContaining([
        expect.stringContaining('trustedIssuers.0.issuer: still a placeholder'),
        expect.stringContaining('trustedIssuers.1.issuer: still a placeholder'),
        expect.stringContaining('alarms: no e-mail address'),
        expect.stringContaining('rendererPrincipals: none'),
      ]),
    );
  });

  it('fails even the dev stage on a malformed setting', () => {
    const dev = JSON.parse(readFileSync(join(STAGES_DIRECTORY, 'dev.json'), 'utf8'));
    const file = settingsFile('dev', { ...dev, throttle: { rateLimit: 'fast', burstLimit: 40 } });
    expect(() => addStageStack(appFor('dev', file))).toThrow(/throttle\.rateLimit: /);
  });
});

describe('the guardrails of a production stage', () => {
  const app = appFor('prod', PROD_SETTINGS);
  const stack = addStageStack(app);
  const template = Template.fromStack(stack);
  const resources = template.toJSON().Resources as Record<string, Resource>;
  const functions = Object.entries(template.findResources('AWS::Lambda::Function')) as [string, Resource][];

  it('traces every function with X-Ray (active)', () => {
    expect(functions).toHaveLength(routes.length + 5);
    for (const [, fn] of functions) expect(fn.Properties.TracingConfig).toEqual({ Mode: 'Active' });
  });

  it('turns tracing off when the stage says so', () => {
    const file = settingsFile('untraced', { ...prodSettings(), tracing: false });
    const untraced = Template.fromStack(addStageStack(appFor('prod', file)));
    for (const fn of Object.values(untraced.findResources('AWS::Lambda::Function')) as Resource[]) {
      expect(fn.Properties.TracingConfig).toBeUndefined();
    }
    expect(untraced.findResources('AWS::IAM::ManagedPolicy')).toEqual({});
  });

  it("grants the configured renderer principals, and no one else, the delivery queue's jobs in its policy", () => {
    const queueId = stack.getLogicalId(stack.scheduler.queue.node.defaultChild as never);
    const [policy, ...others] = Object.values(
      template.findResources('AWS::SQS::QueuePolicy', { Properties: { Queues: [{ Ref: queueId }] } }),
    ) as Resource[];
    expect(others).toHaveLength(0);
    const statements = (
      (policy as Resource).Properties.PolicyDocument as { Statement: Record<string, unknown>[] }
    ).Statement;
    const allowed = statements.filter((statement) => statement.Effect === 'Allow');
    expect(allowed).toEqual([
      {
        Sid: 'RendererConsumes',
        Effect: 'Allow',
        Principal: {
          AWS: [
            'arn:aws:iam::345678901234:role/dashboard-renderer',
            { 'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, ':iam::456789012345:root']] },
          ],
        },
        Action: [...RENDERER_QUEUE_ACTIONS],
        Resource: { 'Fn::GetAtt': [queueId, 'Arn'] },
      },
    ]);
    // And the queue still refuses any request without TLS.
    expect(statements).toContainEqual(
      expect.objectContaining({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
    );
  });

  it('subscribes the alarm e-mails to a TLS-only topic, and alarms the operator topic too, from every alarm', () => {
    const topicId = stack.getLogicalId(stack.monitoring.alarmTopic.node.defaultChild as never);
    const subscriptions = Object.values(template.findResources('AWS::SNS::Subscription')) as Resource[];
    expect(subscriptions.map((subscription) => subscription.Properties)).toEqual([
      { Protocol: 'email', Endpoint: 'oncall@acme-analytics.io', TopicArn: { Ref: topicId } },
      { Protocol: 'email', Endpoint: 'platform-team@acme-analytics.io', TopicArn: { Ref: topicId } },
    ]);
    template.hasResourceProperties('AWS::SNS::TopicPolicy', {
      Topics: [{ Ref: topicId }],
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({
            Effect: 'Deny',
            Action: 'sns:Publish',
            Condition: { Bool: { 'aws:SecureTransport': 'false' } },
          }),
        ]),
      },
    });
    const alarms = Object.values(template.findResources('AWS::CloudWatch::Alarm')) as Resource[];
    expect(alarms.length).toBeGreaterThan(10);
    for (const alarm of alarms) {
      expect(alarm.Properties.AlarmActions).toEqual([
        { Ref: topicId },
        'arn:aws:sns:eu-central-1:210987654321:pager-duty-bridge',
      ]);
    }
  });

  it('gives every EventBridge rule target a dead-letter queue', () => {
    const rules = Object.values(template.findResources('AWS::Events::Rule')) as Resource[];
    expect(rules).toHaveLength(3);
    for (const rule of rules) {
      for (const target of rule.Properties.Targets as Record<string, unknown>[]) {
        expect(target.DeadLetterConfig).toEqual({ Arn: { 'Fn::GetAtt': [expect.any(String), 'Arn'] } });
      }
    }
  });

  it("caps the dispatcher workers' concurrency as configured, and nothing else's", () => {
    const dispatcherId = stack.getLogicalId(stack.scheduler.dispatcher.node.defaultChild as never);
    const capped = functions.filter(([, fn]) => fn.Properties.ReservedConcurrentExecutions !== undefined);
    expect(capped.map(([id, fn]) => [id, fn.Properties.ReservedConcurrentExecutions])).toEqual([
      [dispatcherId, prodSettings().dispatcherReservedConcurrency],
    ]);
  });

  it("lets each function write only to its own log group: no managed policy's logs:* on every group", () => {
    for (const [, fn] of functions) {
      const roleId = (fn.Properties.Role as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0];
      const logGroupId = (fn.Properties.LoggingConfig as { LogGroup: { Ref: string } }).LogGroup.Ref;
      const statements = Object.values(
        template.findResources('AWS::IAM::Policy', { Properties: { Roles: [{ Ref: roleId }] } }),
      ).flatMap(
        (policy) =>
          ((policy as Resource).Properties.PolicyDocument as { Statement: { Action: unknown }[] }).Statement,
      );
      const logStatements = statements.filter((statement) =>
        JSON.stringify(statement.Action).includes('logs:'),
      );
      expect(logStatements).toEqual([
        {
          Effect: 'Allow',
          Action: ['logs:CreateLogStream', 'logs:PutLogEvents'],
          Resource: { 'Fn::GetAtt': [logGroupId, 'Arn'] },
        },
      ]);
      const managed = JSON.stringify(resources[roleId]?.Properties.ManagedPolicyArns ?? []);
      expect(managed).not.toContain('arn:aws:iam::aws:policy');
    }
  });
});
