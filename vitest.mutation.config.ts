import { defineConfig } from 'vitest/config';
import base from './vitest.config';

/**
 * The suite Stryker runs for every mutant: all tests but the generated-request ones, which take
 * half a minute a run and would multiply a mutation run's time for little extra reach.
 */
export default defineConfig({
  test: {
    ...base.test,
    reporters: ['default'],
    projects: undefined,
    include: ['test/**/*.test.ts'],
    exclude: ['test/**/*.property.test.ts'],
  },
});
