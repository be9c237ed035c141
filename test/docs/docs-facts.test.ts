import { readdir, readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routes, timeoutSecondsOf } from '#lib/routes';
import { ADMIN, recipientsFixture } from '#test/functions/add-recipients-helpers';
import { type LocalApi, startLocalApi } from '#test/support/local-api';
import document from '../../lib/openapi/openapi.json' with { type: 'json' };

/**
 * The docs say what the code does: facts a page states are read from the code they are about (the
 * scripts of package.json, the variables lib/config.ts reads and their defaults, the routes' answer
 * shapes in the API description, the functions' timeouts in lib/routes.ts, the job a send-now queues)
 * and compared. A page that says otherwise fails here, naming the page and the claim.
 */

const root = new URL('../../', import.meta.url);
const read = (path: string) => readFile(new URL(path, root), 'utf8');

/** README.md and every page of docs/, by name. */
async function pages(): Promise<Map<string, string>> {
  const names = ['README.md', ...(await readdir(new URL('docs/', root))).map((name) => `docs/${name}`)];
  const texts = await Promise.all(names.filter((name) => name.endsWith('.md')).map(read));
  return new Map(names.filter((name) => name.endsWith('.md')).map((name, i) => [name, texts[i] as string]));
}

/**
 * The use-case map's rows, read off each function's imports: the domain modules it calls and the adapters
 * (`lib/store`, `lib/jobs`) it hands them, as docs/architecture.md lists them.
 */
async function useCaseRows(): Promise<string[]> {
  const files = (await readdir(new URL('functions/', root))).filter((file) => file.endsWith('.ts')).sort();
  return Promise.all(
    files.map(async (file) => {
      const source = await read(`functions/${file}`);
      const imports = [
        ...source.matchAll(
          /import\s+(?:type\s+)?\{([^}]*)\}\s+from\s+'#lib\/((?:domain|store|jobs)\/[^']+)'/g,
        ),
      ].map(([, names, path]) => ({ names: names as string, path: path as string }));
      const domain = [
        ...new Set(
          imports.filter(({ path }) => path.startsWith('domain/')).map(({ path }) => `\`lib/${path}.ts\``),
        ),
      ];
      const adapters = imports
        .filter(({ path }) => !path.startsWith('domain/'))
        .map(({ names, path }) => {
          const named = names
            .split(',')
            .map((name) => name.trim().replace(/^type /, ''))
            .filter(Boolean);
          return `${named.map((name) => `\`${name}\``).join(', ')} (\`lib/${path}.ts\`)`;
        });
      return `| \`${file.replace(/\.ts$/, '')}\` | ${domain.join(', ') || '—'} | ${adapters.join('; ') || '—'} |`;
    }),
  );
}

/** The top-level names of `{a, b: …, c}`, nested braces skipped. */
function fieldNames(shape: string): string[] {
  const names: string[] = [];
  let depth = 0;
  let current = '';
  for (const char of shape.slice(1, -1)) {
    if (char === '{' || char === '[') depth++;
    if (char === '}' || char === ']') depth--;
    if (char === ',' && depth === 0) {
      names.push(current);
      current = '';
    } else current += char;
  }
  names.push(current);
  return names.map((name) => (name.split(/[:=]/)[0] as string).trim()).filter(Boolean);
}

/** The first `{…}` of `text`, braces balanced. */
function firstShape(text: string): string | undefined {
  const start = text.indexOf('{');
  if (start < 0) return undefined;
  let depth = 0;
  for (let i = start; i < text.length; i++) {
    if (text[i] === '{') depth++;
    if (text[i] === '}' && --depth === 0) return text.slice(start, i + 1);
  }
  return undefined;
}

type SchemaObject = { $ref?: string; properties?: Record<string, SchemaObject>; items?: SchemaObject };
const resolve = (schema: SchemaObject): SchemaObject =>
  schema.$ref
    ? resolve(
        (document.components.schemas as Record<string, SchemaObject>)[
          schema.$ref.replace('#/components/schemas/', '')
        ] as SchemaObject,
      )
    : schema;

function answerSchema(method: string, path: string, status: string): SchemaObject | undefined {
  const operation = (document.paths as Record<string, Record<string, unknown>>)[path]?.[
    method.toLowerCase()
  ] as { responses: Record<string, { content?: Record<string, { schema: SchemaObject }> }> } | undefined;
  const schema = operation?.responses[status]?.content?.['application/json']?.schema;
  return schema && resolve(schema);
}

describe('the docs', () => {
  it('name only npm scripts that package.json has', async () => {
    const { scripts } = JSON.parse(await read('package.json')) as { scripts: Record<string, string> };
    const unknown: string[] = [];
    for (const [page, text] of await pages()) {
      for (const [, name] of text.matchAll(/npm run ([a-z][\w:-]*)/g)) {
        if (!(name && name in scripts)) unknown.push(`${page}: npm run ${name}`);
      }
    }
    expect(unknown).toEqual([]);
  });

  it("list in the README's configuration table every variable lib/config.ts and lib/webhook-config.ts read, with its default", async () => {
    const source = `${await read('lib/config.ts')}${await read('lib/webhook-config.ts')}`;
    const readme = await read('README.md');
    const rows = new Map(
      [...readme.matchAll(/^\| `([A-Z_]+)`\s*\| ([^|]*)\|/gm)].map(([, name, fallback]) => [
        name,
        (fallback as string).trim(),
      ]),
    );
    const variables = [...source.matchAll(/read\('([A-Z_]+)'[^;]*?\)\)?\s*(?:\?\?\s*([\d]+|'[^']*'))?/g)];
    expect(variables.length).toBeGreaterThan(10);
    const wrong: string[] = [];
    for (const [, name, fallback] of variables) {
      const row = rows.get(name as string);
      if (row === undefined) wrong.push(`${name}: not in the README's table`);
      else if (fallback && !row.includes(fallback.replaceAll("'", ''))) {
        wrong.push(`${name}: the README says ${row}, the code ${fallback}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it('give every answer shape in a route table with the fields the API description has', async () => {
    const wrong: string[] = [];
    let checked = 0;
    for (const [page, text] of await pages()) {
      for (const line of text.split('\n')) {
        const route = /`(GET|POST|PUT|PATCH|DELETE) (\/v1\/[^`\s?]*)/.exec(line);
        const answer = /\| (\d{3}) (page of )?`?(\{[^|`]*\})/.exec(line);
        if (!route || !answer) continue;
        const [, method, path] = route as unknown as [string, string, string];
        const [, status, pageOf, shape] = answer as unknown as [string, string, string | undefined, string];
        let schema = answerSchema(method, path, status);
        if (schema && pageOf)
          schema = schema.properties?.items?.items && resolve(schema.properties.items.items);
        const described = Object.keys(schema?.properties ?? {}).sort();
        const said = fieldNames(firstShape(shape) ?? '').sort();
        checked++;
        if (JSON.stringify(said) !== JSON.stringify(described))
          wrong.push(`${page}: ${method} ${path} ${status} says {${said}}, the description {${described}}`);
      }
    }
    expect(checked).toBeGreaterThan(5);
    expect(wrong).toEqual([]);
  });

  it("map every deployed function to the domain modules and adapters its handler imports (docs/architecture.md's use cases)", async () => {
    const architecture = await read('docs/architecture.md');
    const section =
      architecture.split('## Use cases: function, domain, adapters')[1]?.split('\n## ')[0] ?? '';
    const documented = section.split('\n').filter((line) => line.startsWith('| `'));
    const rows = await useCaseRows();
    expect(rows.length).toBeGreaterThan(40);
    expect(documented).toEqual(rows);
  });

  it('name as 29-second functions exactly the routes lib/routes.ts gives 29 seconds', async () => {
    const long = routes.filter((route) => timeoutSecondsOf(route) === 29).map((route) => route.operation);
    const api = await read('docs/api.md');
    const row = api.split('\n').find((line) => line.startsWith('| Function time'));
    expect(row, 'docs/api.md has a "Function time" row').toBeDefined();
    const named = routes
      .map((route) => route.operation)
      .filter((operation) => row?.includes(`\`${operation}\``));
    expect(named.sort()).toEqual(long.sort());
  });
});

describe('the job as the docs give it', () => {
  let api: LocalApi;
  beforeAll(async () => {
    api = await startLocalApi({
      ...recipientsFixture(),
      dashboards: [{ id: 70, deploymentId: 7, publicId: 'sales-overview', title: 'Sales', published: true }],
    });
  });
  afterAll(() => api.close());

  it('has the fields of a job a send-now queues', async () => {
    const added = await api.request('POST', '/v1/deployments/7/notifications/700/recipients', {
      token: ADMIN,
      body: { recipients: [{ userId: 12 }] },
    });
    expect(added.status).toBe(200);
    const sent = await api.request('POST', '/v1/deployments/7/notifications/700/send', { token: ADMIN });
    expect(sent.status).toBe(202);
    const outbox = process.env.OUTBOX_DIR as string;
    const [file] = (await readdir(outbox)).filter((name) => name.endsWith('.json'));
    const job = JSON.parse(await readFile(`${outbox}/${file}`, 'utf8')) as Record<string, unknown>;
    const fields = Object.keys(job).sort();
    for (const page of ['docs/deliveries.md', 'docs/scheduling.md']) {
      const text = await read(page);
      const at = text.indexOf('{jobId, runId,');
      expect(at, `${page} gives the job's shape`).toBeGreaterThan(0);
      expect(fieldNames(firstShape(text.slice(at)) ?? '').sort(), page).toEqual(fields);
    }
  });
});
