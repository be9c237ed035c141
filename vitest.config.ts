import { defineConfig } from 'vitest/config';

const PROPERTY_TESTS = 'test/**/*.property.test.ts';
const MIGRATION_TESTS = 'test/store/migrate.test.ts';

export default defineConfig({
  test: {
    // One DynamoDB Local engine per project; each test file gets a table of its own.
    globalSetup: ['test/support/global-setup.ts'],
    setupFiles: ['test/support/per-file-env.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    reporters: process.env.CI
      ? ['default', ['json', { outputFile: '.local/test-results.json' }]]
      : ['default'],
    // The generated-request suites run as a group of their own, not alongside the rest: their load
    // would otherwise bend the timing of the tests that race concurrent requests.
    projects: [
      {
        extends: true,
        test: {
          name: 'suite',
          include: ['test/**/*.test.ts'],
          exclude: [PROPERTY_TESTS, MIGRATION_TESTS],
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: { name: 'properties', include: [PROPERTY_TESTS], sequence: { groupOrder: 1 } },
      },
      // Index creation on DynamoDB Local crawls while other files load the same engine (over 120 s
      // there, 25 s alone): the migration runs last, on an engine of its own.
      {
        extends: true,
        test: { name: 'migration', include: [MIGRATION_TESTS], sequence: { groupOrder: 2 } },
      },
    ],
  },
});
