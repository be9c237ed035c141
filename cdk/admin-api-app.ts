import type { App } from 'aws-cdk-lib';
import { AdminApiStack } from './admin-api-stack.ts';
import { type StageConfig, selectStage, stages } from './stages.ts';

/** The stack of the stage named by `-c stage=<name>`; an unknown or missing name fails the synth. */
export function addStageStack(app: App, known: Record<string, StageConfig> = stages): AdminApiStack {
  const stage = selectStage(app.node.tryGetContext('stage'), known);
  return new AdminApiStack(app, `NotificationAdmin-${stage.name}`, {
    stage,
    description: `Notification and embedding admin API, stage ${stage.name}`,
    tags: { application: 'notification-admin', stage: stage.name },
  });
}
