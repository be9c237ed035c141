import { parseArgs } from 'node:util';
import { dispatchOnce } from '#lib/local/dispatch-loop';
import { DEFAULT_TABLE_NAME, startedDynamoDbEndpoint } from './local-env.ts';

/**
 * `npm run dispatch -- --now <ISO instant>`: one dispatch pass as of that instant (default: now)
 * against the table the environment names, jobs to OUTBOX_DIR (or the queue DELIVERY_QUEUE_URL
 * names), one summary line. How a person tries a Sunday 09:00 schedule on a Tuesday.
 *
 * Without DYNAMODB_ENDPOINT the AWS SDK would reach for a table in whatever account the machine's
 * credentials name: it refuses (exit 2) and names the endpoint `npm start` uses, unless
 * `--table-in-aws` says that a deployed table is meant.
 */
const REFUSED = 2;

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { now: { type: 'string' }, 'table-in-aws': { type: 'boolean', default: false } },
  });
  if (!process.env.DYNAMODB_ENDPOINT && !values['table-in-aws']) {
    const started = await startedDynamoDbEndpoint();
    console.error(
      [
        'npm run dispatch: DYNAMODB_ENDPOINT is not set, so it would run against a table in AWS.',
        started
          ? `npm start uses ${started}: DYNAMODB_ENDPOINT=${started} npm run dispatch -- --now <instant>`
          : 'Set it to the endpoint `npm start` prints on its line "DynamoDB: <endpoint> (table …)".',
        'For a deployed table on purpose, add --table-in-aws (and set TABLE_NAME and AWS_REGION).',
      ].join('\n'),
    );
    process.exit(REFUSED);
  }
  const now = values.now === undefined ? Date.now() : Date.parse(values.now);
  if (Number.isNaN(now))
    throw new Error(`--now ${values.now} is not an ISO-8601 instant (e.g. 2026-11-29T08:00:00Z)`);
  process.env.TABLE_NAME ??= DEFAULT_TABLE_NAME;
  const { line } = await dispatchOnce(now);
  console.log(line);
}

main().catch((error: unknown) => {
  console.error(`npm run dispatch failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
