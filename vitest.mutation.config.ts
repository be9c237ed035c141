import { defineConfig } from 'vitest/config';
import base from './vitest.config';

/**
 * The suite Stryker runs for every mutant: the unit tests of the code it mutates (lib/domain,
 * lib/auth, lib/http, and the store's modules that need no table: keys, cursors, conditional-write
 * answers, codecs), which need no table and run in milliseconds. The HTTP and storage tests
 * reach the same code end to end, but each of their files sets up a table and a local API first:
 * run again for each of some 3,500 mutants they would turn a run of minutes into one of hours. The
 * generated-input (property) tests stay out for the same reason.
 */
export default defineConfig({
  test: {
    ...base.test,
    reporters: ['default'],
    projects: undefined,
    // These tests need no table: no DynamoDB Local is started, and the endpoint they are given leads
    // nowhere, so a test that reached for one would fail at once rather than pass on a stale engine.
    globalSetup: [],
    provide: { dynamoDbEndpoint: 'http://127.0.0.1:9' },
    include: [
      'test/domain/**/*.test.ts',
      'test/auth/**/*.test.ts',
      'test/http/**/*.test.ts',
      'test/store/**/*.test.ts',
    ],
    exclude: [
      'test/**/*.property.test.ts',
      // Through HTTP, with DynamoDB Local.
      'test/auth/admin-authentication.test.ts',
      'test/http/failures.test.ts',
      'test/http/hostile-inputs.test.ts',
      'test/http/metrics.test.ts',
      'test/http/observability.test.ts',
      'test/http/storage-outages.test.ts',
      'test/http/true-answers.test.ts',
      'test/http/write-journal.test.ts',
      // Against the table.
      'test/store/codecs.test.ts',
      'test/store/migrate.test.ts',
      'test/store/store-mechanisms.test.ts',
    ],
  },
});
