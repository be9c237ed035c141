import { mkdir, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import * as z from 'zod/mini';
import { updateNotificationInput } from '#lib/http/schemas/notifications';
import { notificationPath } from '#lib/http/schemas/paths';
import { lambdaContext } from '#lib/local/http-adapter';

/**
 * The request-validation choice, measured: our zod/mini middleware (lib/http/validate.ts) against
 * @middy/validator, whose Ajv needs a JSON Schema. That schema is what `z.toJSONSchema` makes of the
 * same zod schemas (the PUT's, our largest), either compiled by Ajv when the bundle loads (middy's
 * `transpileSchema`) or compiled at build time into standalone code (what middy's docs recommend).
 * Each entry is a minimal handler: Middy, our JSON body parser, the validation, nothing else.
 */

export interface ValidationEntry {
  name: string;
  entryPoint: string;
  note: string;
}

// The Ajv options and plugins of @middy/validator's transpileSchema (7.7.0).
const MIDDY_AJV_OPTIONS = {
  strict: true,
  coerceTypes: 'array',
  allErrors: true,
  useDefaults: 'empty',
  messages: true,
  // zod writes `"type": ["boolean", "null"]` for nullable booleans; Ajv's strict mode wants this said.
  allowUnionTypes: true,
} as const;

/** API Gateway's event as the validator sees it: the path parameters and the parsed body. */
function eventJsonSchema(): Record<string, unknown> {
  const asJsonSchema = (schema: z.ZodMiniType) => {
    const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' });
    return rest;
  };
  return {
    type: 'object',
    properties: {
      pathParameters: asJsonSchema(notificationPath),
      body: asJsonSchema(updateNotificationInput),
    },
    required: ['pathParameters', 'body'],
  };
}

async function precompiledValidator(schema: Record<string, unknown>): Promise<string> {
  // The validator's own Ajv and plugins, resolved from where @middy/validator resolves them.
  const require = createRequire(import.meta.resolve('@middy/validator/transpile'));
  const load = (name: string) => {
    // Ajv's URI library still loads node:punycode, whose deprecation notice would only clutter the table.
    const quiet = process.noDeprecation;
    process.noDeprecation = true;
    try {
      const module = require(name);
      return module.default ?? module;
    } finally {
      process.noDeprecation = quiet;
    }
  };
  const Ajv2020 = load('ajv/dist/2020.js');
  const standaloneCode = load('ajv/dist/standalone/index.js');
  const ajv = new Ajv2020({ ...MIDDY_AJV_OPTIONS, keywords: [], code: { source: true, esm: true } });
  for (const plugin of ['ajv-formats', '@silverbucket/ajv-formats-draft2019', 'ajv-keywords', 'ajv-errors'])
    load(plugin)(ajv);
  return standaloneCode(ajv, ajv.compile(schema));
}

// A JSON Schema cannot say "an IANA time zone": with Ajv the check stays code, written out here as
// lib/domain/schedule.ts has it, so that these entries carry no more than they need.
const zoneCheck = `
const isTimeZone = (name) => {
  if (!/^[A-Za-z][A-Za-z0-9_+-]*(\\/[A-Za-z0-9_+-]+)*$/.test(name)) return false;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
    return true;
  } catch {
    return false;
  }
};
const checkZone = (request) => {
  const zone = request.event.body?.timezone;
  if (typeof zone === 'string' && !isTimeZone(zone)) throw new Error('timezone: not an IANA time zone');
};`;

/** Writes the generated schema, standalone validator and entries; returns the entries to bundle. */
export async function validationEntries(directory: string): Promise<ValidationEntry[]> {
  await mkdir(directory, { recursive: true });
  const schema = eventJsonSchema();
  await writeFile(`${directory}/event-schema.json`, JSON.stringify(schema, null, 2));
  await writeFile(`${directory}/event-validator.mjs`, await precompiledValidator(schema));

  const common = `import middy from '@middy/core';
import validator from '@middy/validator';
import { jsonBody } from '#lib/http/json-body';
${zoneCheck}`;
  await writeFile(
    `${directory}/middy-validator-at-load.mjs`,
    `${common}
import { transpileSchema } from '@middy/validator/transpile';
import schema from './event-schema.json' with { type: 'json' };
export const handler = middy()
  .use(jsonBody({ optional: true }))
  .use(validator({ eventSchema: transpileSchema(schema, ${JSON.stringify({ allowUnionTypes: true })}) }))
  .before(checkZone)
  .handler(async () => ({ statusCode: 200, body: '{}' }));
`,
  );
  await writeFile(
    `${directory}/middy-validator-precompiled.mjs`,
    `${common}
import eventSchema from './event-validator.mjs';
export const handler = middy()
  .use(jsonBody({ optional: true }))
  .use(validator({ eventSchema }))
  .before(checkZone)
  .handler(async () => ({ statusCode: 200, body: '{}' }));
`,
  );

  return [
    {
      name: 'zod/mini middleware',
      entryPoint: new URL('./entries/validate-with-zod.ts', import.meta.url).pathname,
      note: 'lib/http/validate.ts with the PUT schemas, as the functions use it',
    },
    {
      name: '@middy/validator, compiled at load',
      entryPoint: `${directory}/middy-validator-at-load.mjs`,
      note: 'z.toJSONSchema of the same schemas, transpileSchema (Ajv compile) at import',
    },
    {
      name: '@middy/validator, precompiled',
      entryPoint: `${directory}/middy-validator-precompiled.mjs`,
      note: 'the same JSON Schema compiled at build time to Ajv standalone code',
    },
  ];
}

const event = (body: unknown) => ({
  headers: { 'content-type': 'application/json' },
  pathParameters: { deploymentId: '7', id: '700' },
  body: JSON.stringify(body),
  isBase64Encoded: false,
});

/** A measured bundle must validate: it accepts a valid PUT body and refuses bad ones. */
export async function checkValidationBundle(file: string): Promise<void> {
  const { handler } = (await import(pathToFileURL(file).href)) as {
    handler: (event: unknown, context: unknown) => Promise<{ statusCode: number }>;
  };
  const context = () => lambdaContext('validation', 3000, 'bench');
  const valid = await handler(event({ hour: 9, timezone: 'Europe/Berlin' }), context());
  if (valid.statusCode !== 200) throw new Error(`${file} refused a valid body`);
  for (const bad of [{ hour: 24 }, { timezone: 'Mars/Base' }, { hour: 9, colour: 'red' }]) {
    const refused = await handler(event(bad), context()).then(
      () => false,
      () => true,
    );
    if (!refused) throw new Error(`${file} accepted ${JSON.stringify(bad)}`);
  }
}
