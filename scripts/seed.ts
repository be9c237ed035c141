import { parseArgs } from 'node:util';
import { ServiceError } from '#lib/errors';
import { ensureTable, loadFixture } from '#lib/fixtures/load-fixture';
import { DEFAULT_TABLE_NAME, readFixture } from './local-env.ts';

/**
 * `npm run seed -- --file F.json`: loads a fixture into the table the environment names: the local
 * engine (DYNAMODB_ENDPOINT) or a deployed stage's table (TABLE_NAME with AWS credentials).
 */
async function main(): Promise<void> {
  const { values } = parseArgs({ options: { file: { type: 'string', short: 'f' } } });
  if (!values.file) throw new Error('Usage: npm run seed -- --file fixture.json');
  process.env.TABLE_NAME ??= DEFAULT_TABLE_NAME;
  const fixture = await readFixture(values.file);
  if (process.env.DYNAMODB_ENDPOINT) await ensureTable();
  // Whole or not at all: a fixture it refuses writes nothing.
  const count = await loadFixture(fixture);
  console.log(`Loaded ${count} items from ${values.file} into ${process.env.TABLE_NAME}`);
  if (fixture.trustedIssuers.length > 0) {
    console.log(
      'Note: trustedIssuers are not stored in the table; a deployed stage takes them from its configuration.',
    );
  }
}

main().catch((error: unknown) => {
  console.error(`npm run seed failed: ${error instanceof Error ? error.message : String(error)}`);
  // A refused fixture names every problem it has, not only the first.
  if (error instanceof ServiceError && error.problems.length > 1) {
    for (const problem of error.problems) console.error(`  ${problem.path}: ${problem.message}`);
  }
  process.exit(1);
});
