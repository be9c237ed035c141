import { type App, Validations } from 'aws-cdk-lib';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { AwsSolutionsChecks } from 'cdk-nag';

/**
 * cdk-nag's AwsSolutions rules, run over every stack when the app synthesizes: a finding that is not
 * acknowledged, each with its reason next to what it concerns, fails the synth.
 */
export function addGuardrailChecks(app: App): void {
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
}

/** A queue that is itself the dead-letter queue of an EventBridge rule target: cdk-nag sees only redrive policies. */
export function acknowledgeRuleTargetDeadLetterQueue(queue: IQueue): void {
  Validations.of(queue).acknowledge({
    id: 'AwsSolutions::AwsSolutions-SQS3',
    reason:
      "This queue is the dead-letter queue of an EventBridge rule's target (DeadLetterConfig), which cdk-nag does not recognize as one; a dead-letter queue needs none of its own",
  });
}
