import { defineConfig, mergeConfig } from 'vitest/config';
import base from './vitest.config';

/**
 * The suite Stryker runs for every mutant: all tests but the generated-request ones, which take
 * half a minute a run and would multiply a mutation run's time for little extra reach.
 */
export default mergeConfig(
  base,
  defineConfig({
    test: { exclude: ['test/**/*.property.test.ts', 'node_modules/**'], reporters: ['default'] },
  }),
);
