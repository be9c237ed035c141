import { Annotations, type App } from 'aws-cdk-lib';
import { AdminApiStack } from './admin-api-stack.ts';
import { loadStage } from './stages.ts';

/**
 * The stack of the stage named by `-c stage=<name>`, from its settings file (`-c stageFile=<path>` names
 * one outside cdk/stages/); an unknown stage or a setting it refuses fails the synth.
 */
export function addStageStack(app: App): AdminApiStack {
  const { stage, warnings } = loadStage(app.node.tryGetContext('stage'), app.node.tryGetContext('stageFile'));
  const stack = new AdminApiStack(app, `NotificationAdmin-${stage.name}`, {
    stage,
    description: `Notification and embedding admin API, stage ${stage.name}`,
    tags: { application: 'notification-admin', stage: stage.name },
  });
  if (warnings.length > 0) {
    Annotations.of(stack).addWarningV2(
      'notification-admin:stage-settings',
      `Stage "${stage.name}" is a demo: it deploys, but is not finished:\n  ${warnings.join('\n  ')}`,
    );
  }
  return stack;
}
