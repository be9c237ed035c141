import { randomUUID } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inject } from 'vitest';

// Runs before each test file's own imports: its modules read this configuration on first use.
process.env.DYNAMODB_ENDPOINT = inject('dynamoDbEndpoint');
process.env.TABLE_NAME = `test-${randomUUID()}`;
process.env.AWS_REGION = 'us-east-1';
process.env.LOG_LEVEL ??= 'silent';
// Metrics are checked where they are tested; elsewhere their lines would only fill the output.
process.env.POWERTOOLS_METRICS_DISABLED ??= 'true';
// Every request looks its caller up again, so a test sees the effect of a change at once.
process.env.PRINCIPAL_CACHE_SECONDS ??= '0';
// Delivery jobs of the file's runs go to a folder of its own, never into the working copy.
process.env.OUTBOX_DIR = join(tmpdir(), `outbox-${process.env.TABLE_NAME}`);
// Unsubscribe links in delivery jobs are signed with this; a fixed test key, never a stage's.
process.env.UNSUBSCRIBE_SIGNING_KEY ??= Buffer.alloc(32, 1).toString('base64');
process.env.PUBLIC_BASE_URL ??= 'http://api.test.example';
// Each change reads the deployment's webhook subscriptions again, so a test's new endpoint hears at once.
process.env.WEBHOOK_SUBSCRIPTION_CACHE_SECONDS ??= '0';
