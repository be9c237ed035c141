import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { type Fixture, parseFixture } from '#lib/fixtures/fixture';

/** Shared by `npm start`, `npm run seed` and `npm run invoke`: the local defaults and fixture reading. */

export const DEFAULT_TABLE_NAME = 'notification-admin-local';
export const DEMO_FIXTURE = new URL('../fixtures/demo.json', import.meta.url);

export async function readFixture(path: string | URL): Promise<Fixture> {
  const text = await readFile(path, 'utf8');
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new Error(`${path} is not valid JSON: ${(error as Error).message}`);
  }
  return parseFixture(json);
}

/**
 * What the running `npm start` uses, one line each, for commands in another terminal to read:
 * `API=$(cat .local/api-url)`, `DYNAMODB_ENDPOINT=$(cat .local/dynamodb-endpoint) npm run dispatch`.
 */
export const startedFiles = {
  apiUrl: fileURLToPath(new URL('../.local/api-url', import.meta.url)),
  dynamoDbEndpoint: fileURLToPath(new URL('../.local/dynamodb-endpoint', import.meta.url)),
} as const;

export async function recordStarted(apiUrl: string, dynamoDbEndpoint: string): Promise<void> {
  await mkdir(fileURLToPath(new URL('../.local/', import.meta.url)), { recursive: true });
  await writeFile(startedFiles.apiUrl, `${apiUrl}\n`);
  await writeFile(startedFiles.dynamoDbEndpoint, `${dynamoDbEndpoint}\n`);
}

async function readStarted(file: string): Promise<string | undefined> {
  try {
    return (await readFile(file, 'utf8')).trim() || undefined;
  } catch {
    return undefined;
  }
}

/** The DynamoDB endpoint the last `npm start` recorded, if any. */
export const startedDynamoDbEndpoint = () => readStarted(startedFiles.dynamoDbEndpoint);

/** The base URL the last `npm start` recorded, if any. */
export const startedApiUrl = () => readStarted(startedFiles.apiUrl);

/** Local runs take the console and platform issuers from the fixture; deployed stages from their config. */
export function trustIssuersOf(fixture: Fixture): void {
  if (fixture.trustedIssuers.length > 0 && !process.env.TRUSTED_ISSUERS) {
    process.env.TRUSTED_ISSUERS = JSON.stringify(fixture.trustedIssuers);
  }
}
