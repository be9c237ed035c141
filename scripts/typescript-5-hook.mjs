/**
 * openapi-typescript builds its output with the TypeScript 5 compiler API, which TypeScript 7 (the
 * project's compiler) no longer has: its imports of `typescript` get the TypeScript 5 package that
 * package.json installs as `typescript-5`. Nothing else is redirected.
 */
export async function resolve(specifier, context, nextResolve) {
  if (specifier === 'typescript' && context.parentURL?.includes('/node_modules/openapi-typescript/')) {
    return nextResolve('typescript-5', context);
  }
  return nextResolve(specifier, context);
}
