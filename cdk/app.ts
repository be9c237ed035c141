import { App } from 'aws-cdk-lib';
import { addStageStack } from './admin-api-app.ts';
import { addGuardrailChecks } from './guardrails.ts';
import { StageConfigError } from './stages.ts';

// The CLI shows everything the app writes on stderr, even under --quiet, and the CDK announces each of
// the 22 bundles there ("Bundling asset …"). That line alone is dropped; esbuild's warnings and errors,
// and everything else, still come through.
const BUNDLING_ANNOUNCEMENT = /^Bundling asset \S+\.\.\.\n$/;
const writeToStderr = process.stderr.write.bind(process.stderr);
process.stderr.write = ((chunk: unknown, ...rest: never[]) =>
  typeof chunk === 'string' && BUNDLING_ANNOUNCEMENT.test(chunk)
    ? true
    : writeToStderr(chunk as string, ...rest)) as typeof process.stderr.write;

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
