import { App } from 'aws-cdk-lib';
import { addStageStack } from './admin-api-app.ts';
import { addGuardrailChecks } from './guardrails.ts';
import { StageConfigError } from './stages.ts';

// `cdk synth|deploy -c stage=<name>`: one stack per stage, its settings in cdk/stages/<name>.json.
const app = new App();
try {
  addStageStack(app);
} catch (error) {
  if (!(error instanceof StageConfigError)) throw error;
  console.error(error.message);
  process.exit(1);
}
addGuardrailChecks(app);
app.synth();
