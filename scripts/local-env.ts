import { readFile } from 'node:fs/promises';
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

/** Local runs take the console and platform issuers from the fixture; deployed stages from their config. */
export function trustIssuersOf(fixture: Fixture): void {
  if (fixture.trustedIssuers.length > 0 && !process.env.TRUSTED_ISSUERS) {
    process.env.TRUSTED_ISSUERS = JSON.stringify(fixture.trustedIssuers);
  }
}
