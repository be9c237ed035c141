import type { LambdaHandler, ResolveHandler } from '#lib/local/http-adapter';

/**
 * Loads `functions/<operation>.ts` on first use, as Lambda loads a function's bundle on a cold start.
 * The path is built at run time so that nothing in lib/ depends on functions/ at build time.
 */
export function functionsFrom(functionsDirectory: URL): ResolveHandler {
  const loaded = new Map<string, Promise<LambdaHandler>>();
  return (operation) => {
    let handler = loaded.get(operation);
    if (!handler) {
      handler = import(new URL(`${operation}.ts`, functionsDirectory).href).then(
        (module: { handler: LambdaHandler }) => module.handler,
      );
      loaded.set(operation, handler);
    }
    return handler;
  };
}
