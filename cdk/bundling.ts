/**
 * How every function is bundled, in one place: the CDK stack hands these settings to NodejsFunction
 * (local esbuild, no Docker) and the benchmark builds the very same bundles with esbuild directly.
 */

const NODE_TARGET = 'node24';

/** ESM bundles still meet CommonJS dependencies that call require(); this gives them one. */
const ESM_REQUIRE_SHIM =
  "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);";

export const bundlingSettings = {
  format: 'esm',
  platform: 'node',
  target: NODE_TARGET,
  minify: true,
  sourcemap: true,
  // The map serves to decode a stack trace next to the repository; without the sources inlined it is
  // a third of the size, and so is the zip Lambda fetches on a cold start.
  sourcesContent: false,
  // Prefer packages' ESM builds, which tree-shake; the AWS SDK is bundled, never taken from the runtime.
  mainFields: ['module', 'main'],
  banner: ESM_REQUIRE_SHIM,
  externalModules: [] as string[],
} as const;
