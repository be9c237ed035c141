import { beforeEach, vi } from 'vitest';

/**
 * Loads a module anew, inside the running test. A module builds its schemas and patterns when it is
 * imported; imported at the top of a test file, that happens before any test starts, and a mutation
 * run cannot tell which test relies on a schema's limits and messages (it counts such changes as
 * "static" and leaves them untested). Loaded here, the build belongs to the test that checks it.
 */
export async function loadFresh<T>(load: () => Promise<T>): Promise<T> {
  vi.resetModules();
  return load();
}

/**
 * `loadFresh` before each test of the file (or of the suite it is called in); the getter returns the
 * running test's copy. For tests that use a module's schemas in many synchronous assertions.
 */
export function freshForEachTest<T>(load: () => Promise<T>): () => T {
  let loaded: { module: T } | undefined;
  beforeEach(async () => {
    loaded = { module: await loadFresh(load) };
  });
  return () => {
    if (!loaded) throw new Error('freshForEachTest: read the module inside a test');
    return loaded.module;
  };
}
