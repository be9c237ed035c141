import { migrateTable } from '#lib/store/dynamo/migrate';
import { DEFAULT_TABLE_NAME } from './local-env.ts';

/**
 * `npm run migrate`: brings the table the environment names (DYNAMODB_ENDPOINT / TABLE_NAME, or a
 * deployed stage's table with AWS credentials) up to this version. Safe to run again at any time.
 */
async function main(): Promise<void> {
  process.env.TABLE_NAME ??= DEFAULT_TABLE_NAME;
  const report = await migrateTable();
  console.log(
    `Migrated ${process.env.TABLE_NAME}: ${report.scanned} items scanned; index attributes added to ` +
      `${report.notifications} notifications and ${report.recipients} recipients; ` +
      `${report.dashboardLinks} dashboard links written; indexes created: ${report.indexesCreated.join(', ') || 'none'}`,
  );
}

main().catch((error: unknown) => {
  console.error(`npm run migrate failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
