import type { TestProject } from 'vitest/node';
import { startDynamoDbLocal } from '#lib/local/dynamodb-local';

declare module 'vitest' {
  export interface ProvidedContext {
    dynamoDbEndpoint: string;
  }
}

/** One real DynamoDB Local for the run (or the engine DYNAMODB_ENDPOINT names). */
export default async function setup(project: TestProject) {
  if (process.env.DYNAMODB_ENDPOINT) {
    project.provide('dynamoDbEndpoint', process.env.DYNAMODB_ENDPOINT);
    return;
  }
  const engine = await startDynamoDbLocal();
  project.provide('dynamoDbEndpoint', engine.endpoint);
  return () => engine.stop();
}
