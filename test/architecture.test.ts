import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import ts from 'typescript-5';
import { describe, expect, it } from 'vitest';

/**
 * Which layer may import which, in one place (docs/architecture.md explains each). A layer is a
 * folder of `lib/` (`lib/domain`), a single file at the top of `lib/` (`lib/errors`), or one of
 * `functions`, `cdk` and `scripts`. A layer always imports its own files and the leaf modules.
 */
const MAY_IMPORT: Record<string, readonly string[]> = {
  // Entry points: a Lambda handler wires the layers below it; the CDK app reads the table's shape.
  functions: ['lib/http', 'lib/auth', 'lib/domain', 'lib/store', 'lib/jobs', 'lib/secrets', 'lib/openapi'],
  cdk: ['lib/store'],
  scripts: ['cdk', 'lib/local', 'lib/openapi', 'lib/fixtures', 'lib/http', 'lib/domain', 'lib/store'],
  // Composition roots: the local server and the API description put the whole API together.
  'lib/local': ['lib/http', 'lib/auth', 'lib/domain', 'lib/store', 'lib/jobs', 'lib/secrets'],
  'lib/openapi': ['lib/http', 'lib/domain'],
  // Seeds the local table through the store and the API's own input schemas.
  'lib/fixtures': ['lib/http', 'lib/auth', 'lib/domain', 'lib/store'],
  // The request chain, then who the caller is; createHandler supplies the credential store itself
  // (lib/http/authentication.ts).
  'lib/http': ['lib/auth', 'lib/domain', 'lib/store'],
  'lib/auth': ['lib/domain'],
  // Adapters: they implement the domain's ports.
  'lib/store': ['lib/domain'],
  'lib/jobs': ['lib/domain', 'lib/secrets'],
  'lib/secrets': [],
  // The rules themselves: nothing of ours but the pure leaves.
  'lib/domain': [],
};

/**
 * Leaf modules: they import nothing of ours but other leaves, so any layer may use them. The pure
 * ones hold plain facts and helpers; the runtime ones read the environment, the clock or random
 * numbers, wait, or write telemetry, which the domain leaves to its callers.
 */
const PURE_LEAVES = [
  'lib/deadline',
  'lib/errors',
  'lib/limits',
  'lib/routes',
  'lib/timeouts',
  'lib/telemetry-names',
];
const RUNTIME_LEAVES = [
  'lib/config',
  'lib/webhook-config',
  'lib/log',
  'lib/metrics',
  // Timers, jitter, the machine's clock and random numbers: the domain takes them as parameters.
  'lib/concurrency',
  'lib/clock',
  'lib/ttl-cache',
  // The deadline of the invocation in progress, which storage calls are bounded by.
  'lib/invocation-deadline',
];
const LEAVES = [...PURE_LEAVES, ...RUNTIME_LEAVES];

const ROOT = join(import.meta.dirname, '..');
const SCANNED = ['functions', 'lib', 'cdk', 'scripts'];

interface Import {
  from: string;
  /** The imported file, relative to the repository, or the package's name. */
  to: string;
  local: boolean;
  /** Erased when compiled: a type-only import loads nothing. */
  typeOnly: boolean;
}

function sourceFiles(folder: string): string[] {
  return readdirSync(join(ROOT, folder), { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && /\.(ts|mjs)$/.test(entry.name))
    .map((entry) => relative(ROOT, join(entry.parentPath, entry.name)));
}

function resolve(from: string, specifier: string): { to: string; local: boolean } {
  const alias = /^#(lib|functions|test)\/(.+)$/.exec(specifier);
  if (alias) return { to: `${alias[1]}/${alias[2]}.ts`, local: true };
  if (specifier.startsWith('.')) return { to: normalize(join(dirname(from), specifier)), local: true };
  return { to: specifier, local: false };
}

/** Every import, re-export and dynamic import of a file, as the TypeScript parser reads them. */
function importsOf(file: string): Import[] {
  const source = ts.createSourceFile(file, readFileSync(join(ROOT, file), 'utf8'), ts.ScriptTarget.Latest);
  const found: Import[] = [];
  const add = (specifier: ts.Expression, typeOnly: boolean) => {
    if (ts.isStringLiteral(specifier)) found.push({ from: file, ...resolve(file, specifier.text), typeOnly });
  };
  const visit = (node: ts.Node) => {
    if (ts.isImportDeclaration(node)) {
      const clause = node.importClause;
      const bindings = clause?.namedBindings;
      const allNamedTypes =
        clause?.name === undefined &&
        bindings !== undefined &&
        ts.isNamedImports(bindings) &&
        bindings.elements.length > 0 &&
        bindings.elements.every((element) => element.isTypeOnly);
      add(node.moduleSpecifier, clause?.isTypeOnly === true || allNamedTypes);
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier) {
      add(node.moduleSpecifier, node.isTypeOnly);
    } else if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments[0]
    ) {
      add(node.arguments[0], false);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/**
 * What a file reads of the machine it runs on: the time (`Date.now()`, `new Date()`), timers, random
 * numbers. The domain takes these from its callers (lib/domain/clock.ts).
 */
const MACHINE_READS = new Set([
  'Date.now',
  'performance.now',
  'setTimeout',
  'setInterval',
  'setImmediate',
  'Math.random',
  'randomBytes',
  'randomUUID',
  'randomInt',
  'getRandomValues',
]);

function machineReadsOf(file: string): string[] {
  const source = ts.createSourceFile(
    file,
    readFileSync(join(ROOT, file), 'utf8'),
    ts.ScriptTarget.Latest,
    true,
  );
  const found: string[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isCallExpression(node)) {
      const callee = node.expression.getText(source);
      const name = callee.split('.').at(-1) ?? callee;
      if (MACHINE_READS.has(callee) || MACHINE_READS.has(name)) found.push(callee);
    }
    if (ts.isNewExpression(node) && node.expression.getText(source) === 'Date' && !node.arguments?.length)
      found.push('new Date()');
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** The layer a file belongs to (see MAY_IMPORT). */
function layerOf(file: string): string {
  const parts = file.split('/');
  if (parts[0] !== 'lib') return parts[0] as string;
  return parts.length > 2 ? `lib/${parts[1]}` : file.replace(/\.ts$/, '');
}

/** Why `from` may not import `to`, or undefined when it may. */
function refusal(from: string, to: string): string | undefined {
  if (from === to) return undefined;
  if (LEAVES.includes(from)) return LEAVES.includes(to) ? undefined : 'a leaf module imports only leaves';
  if (from === 'lib/domain' && RUNTIME_LEAVES.includes(to))
    return 'the domain reads no environment, clock or randomness: its callers pass them';
  if (LEAVES.includes(to)) return undefined;
  if (MAY_IMPORT[from]?.includes(to)) return undefined;
  return 'not in the table of allowed directions';
}

/** The edges between layers that lie on a loop: the target reaches the source again. */
function loops(edges: ReadonlyMap<string, ReadonlySet<string>>): string[] {
  const reaches = (start: string, goal: string) => {
    const seen = new Set<string>();
    const stack = [start];
    for (let layer = stack.pop(); layer !== undefined; layer = stack.pop()) {
      for (const next of edges.get(layer) ?? []) {
        if (next === goal) return true;
        if (!seen.has(next)) {
          seen.add(next);
          stack.push(next);
        }
      }
    }
    return false;
  };
  const found: string[] = [];
  for (const [from, targets] of edges) {
    for (const to of targets) if (reaches(to, from)) found.push(`${from} -> ${to}`);
  }
  return found;
}

/** A file's parsed source. */
const parsed = (file: string) =>
  ts.createSourceFile(file, readFileSync(join(ROOT, file), 'utf8'), ts.ScriptTarget.Latest, true);

const isExported = (node: ts.Node) =>
  ts.canHaveModifiers(node) &&
  (ts.getModifiers(node) ?? []).some((m) => m.kind === ts.SyntaxKind.ExportKeyword);

/** The interfaces the domain exports, by name: the file that declares each. */
function domainInterfaces(): Map<string, string> {
  const found = new Map<string, string>();
  for (const file of sourceFiles('lib/domain')) {
    for (const node of parsed(file).statements) {
      if (ts.isInterfaceDeclaration(node) && isExported(node)) found.set(node.name.text, file);
    }
  }
  return found;
}

/** `export const <name>: <Type> = …` of a file: its exported values declared with a named type. */
function typedExports(file: string): { name: string; type: string }[] {
  return parsed(file).statements.flatMap((node) =>
    ts.isVariableStatement(node) && isExported(node)
      ? node.declarationList.declarations.flatMap((declaration) =>
          ts.isIdentifier(declaration.name) &&
          declaration.type &&
          ts.isTypeReferenceNode(declaration.type) &&
          ts.isIdentifier(declaration.type.typeName)
            ? [{ name: declaration.name.text, type: declaration.type.typeName.text }]
            : [],
        )
      : [],
  );
}

/** The feature folder of a file of lib/domain or lib/store (`recipients`), or the file itself when flat. */
const featureOf = (file: string) => file.split('/')[2]?.replace(/\.ts$/, '');

/**
 * Where a port declared beside every feature (lib/domain/*.ts) has its adapter: the principal's
 * credential directory is the users' storage.
 */
const SHARED_PORT_FEATURES: Record<string, string> = { principal: 'users' };

const files = SCANNED.flatMap(sourceFiles);
const imports = files.flatMap(importsOf);
const ours = imports.filter((entry) => entry.local && !entry.to.endsWith('.json'));
const layerEdges = new Map<string, Set<string>>();
for (const { from, to } of ours) {
  const [a, b] = [layerOf(from), layerOf(to)];
  if (a !== b) layerEdges.set(a, (layerEdges.get(a) ?? new Set()).add(b));
}

describe('architecture', () => {
  it('places every file in a layer of the table', () => {
    const known = new Set([...Object.keys(MAY_IMPORT), ...LEAVES]);
    expect(files.map(layerOf).filter((layer) => !known.has(layer))).toEqual([]);
  });

  it('has no import that points up or sideways', () => {
    const upward = ours.flatMap(({ from, to }) => {
      const why = refusal(layerOf(from), layerOf(to));
      return why ? [`${from} -> ${to}: ${why}`] : [];
    });
    expect(upward).toEqual([]);
  });

  it('has no loop between layers', () => {
    expect(loops(layerEdges)).toEqual([]);
  });

  it('imports no test code outside the tests', () => {
    expect(ours.filter(({ to }) => to.startsWith('test/')).map(({ from }) => from)).toEqual([]);
  });

  it('keeps the AWS SDK out of the CDK synth', () => {
    const runtime = imports.filter((entry) => !entry.typeOnly);
    const reached = new Set(files.filter((file) => file.startsWith('cdk/')));
    for (const file of reached) {
      for (const { from, to, local } of runtime) if (from === file && local) reached.add(to);
    }
    const sdk = runtime.filter(({ from, to }) => reached.has(from) && to.startsWith('@aws-sdk/'));
    expect(sdk.map(({ from, to }) => `${from} -> ${to}`)).toEqual([]);
  });

  it('keeps the domain free of clocks, timers and randomness', () => {
    const uses = files
      .filter((file) => file.startsWith('lib/domain/'))
      .flatMap((file) => machineReadsOf(file).map((use) => `${file}: ${use}`));
    expect(uses).toEqual([]);
  });

  it('names each storage adapter after the domain port it implements, one per port, in the same feature folder', () => {
    const ports = domainInterfaces();
    const adapters = sourceFiles('lib/store').flatMap((file) =>
      typedExports(file)
        .filter(({ type }) => ports.has(type))
        .map((adapter) => ({ ...adapter, file })),
    );
    const problems = adapters.flatMap(({ name, type, file }) => {
      const port = ports.get(type) as string;
      const feature = SHARED_PORT_FEATURES[featureOf(port) ?? ''] ?? featureOf(port);
      return [
        ...(name === type[0]?.toLowerCase() + type.slice(1) ? [] : [`${file}: ${name} implements ${type}`]),
        ...(featureOf(file) === feature ? [] : [`${file}: ${type} is declared in ${port}`]),
        ...(adapters.filter((other) => other.type === type).length === 1
          ? []
          : [`${type}: more than one adapter`]),
      ];
    });
    expect(problems).toEqual([]);
    // The check reads what the parser found: one it knows of.
    expect(adapters).toContainEqual({
      name: 'addRecipientsStore',
      type: 'AddRecipientsStore',
      file: 'lib/store/recipients/recipients.ts',
    });
    expect(adapters.length).toBeGreaterThan(30);
  });

  // The checks above read what the parser found: a parser that found nothing would pass them all.
  it('finds the imports it checks', () => {
    expect(imports).toContainEqual({
      from: 'functions/add-recipients.ts',
      to: 'lib/http/create-handler.ts',
      local: true,
      typeOnly: false,
    });
    expect(refusal('lib/domain', 'lib/store')).toBeDefined();
    expect(machineReadsOf('lib/clock.ts')).toEqual([
      'Date.now',
      'Date.now',
      'randomBytes',
      'Date.now',
      'Date.now',
    ]);
    expect(refusal('lib/store', 'lib/domain')).toBeUndefined();
    expect(
      loops(
        new Map([
          ['a', new Set(['b'])],
          ['b', new Set(['c'])],
          ['c', new Set(['a'])],
        ]),
      ),
    ).toHaveLength(3);
  });
});
