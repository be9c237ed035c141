import { vi } from 'vitest';

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
