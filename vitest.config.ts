import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // One DynamoDB Local engine for the whole run; each test file gets a table of its own.
    globalSetup: ['test/support/global-setup.ts'],
    setupFiles: ['test/support/per-file-env.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    reporters: process.env.CI
      ? ['default', ['json', { outputFile: '.local/test-results.json' }]]
      : ['default'],
  },
});
