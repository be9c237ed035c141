import * as z from 'zod/mini';
import type { ApiHandler, HandlerDescription } from '#lib/http/handler-chain';
import { type ErrorStatus, statusOf } from '#lib/http/statuses';
import { inputComponents, outputComponents } from '#lib/openapi/components';
import { responseSchemas } from '#lib/openapi/responses';
import { type RepeatEffect, type RouteFacts, routes } from '#lib/routes';

/**
 * The OpenAPI 3.1 description of the API, built from what each handler declares: its access policy,
 * the zod schemas it validates path, query, headers and body with, its success status and the shape
 * of its answer; and from its route's facts (lib/routes.ts): summary and the failures of its own
 * rules. `npm run openapi` writes it to lib/openapi/openapi.json, which GET /v1/spec serves
 * (with `servers` set to where it was fetched from): no function builds it at run time, so none pays
 * for it at cold start. What every route gets without asking: its bodies and answers as named schema
 * components (lib/openapi/components.ts), a tag from its path, integer bounds that are real, and the
 * error answers its definition implies.
 */

const API_VERSION = '1.0.0';

type Definition = HandlerDescription;
type JsonSchema = Record<string, unknown>;
/** A schema as zod writes it: a JSON Schema object, or `true`/`false` for "anything"/"nothing". */
type ZodJsonSchema = z.core.JSONSchema.BaseSchema;

/** What each status a failure can be answered with (lib/http/statuses.ts) tells a client. */
const errorDescriptions: Record<ErrorStatus, string> = {
  400: 'The request is malformed or invalid; `errors` names every field at fault',
  401: 'No credential, or one that is not valid',
  403: 'The caller may not do this',
  404: 'No such resource, or none that this caller may see',
  409: 'A concurrent change won; the request is safe to repeat',
  413: 'The body is larger than 5 MiB',
  415: 'The body is not application/json in UTF-8',
  422: 'This Idempotency-Key was used with another body',
  429: 'Too soon after the previous request of its kind, or while that one is still dispatching; nothing was done: send it again after Retry-After',
  500: 'An internal error; the answer carries nothing more than its request id',
  503: 'Storage or an identity provider is unavailable, or time ran out; the request is safe to repeat after Retry-After',
};

/** A 503 says what a repeat of the route's request does (its `repeat` fact): one answer component each. */
const unavailableDescriptions: Record<Exclude<RepeatEffect, 'safe'>, string> = {
  'safe-then-not-found': `${errorDescriptions[503]} (a repeat answers 404 if this one was done)`,
  'with-key':
    'Storage or an identity provider is unavailable, or time ran out; the request may have been done: repeat it after Retry-After with the same Idempotency-Key header, so that it is not done twice',
  'look-first':
    'Storage or an identity provider is unavailable, or time ran out; the request may have been done: look before repeating it after Retry-After (a repeat does it again)',
};

const unavailableResponse = (repeat: RepeatEffect) =>
  repeat === 'safe' ? 'Error503' : `Error503${pascalCase(repeat)}`;

/** Statuses whose answer says, in `Retry-After`, when to repeat the request. */
const retryAfterStatuses = new Set<number>([429, 503]);

/** Tags by the path's first segment after `/v1`; runs and their deliveries have their own. */
const tagsBySegment: Record<string, { name: string; description: string }> = {
  deployments: { name: 'Notifications', description: 'Scheduled notifications and their recipients' },
  runs: { name: 'Runs', description: 'What a notification sent: its runs and their deliveries' },
  embed: {
    name: 'Embed',
    description: "Dashboards for signed embedding, and embed users' own subscriptions",
  },
  spec: { name: 'API description', description: 'This document' },
  deliveries: { name: 'Deliveries', description: "The renderer's outcome reports of delivery jobs" },
  schedules: { name: 'Schedules', description: 'Schedules checked and previewed before they are saved' },
  unsubscribe: {
    name: 'Unsubscribe',
    description: 'One-click unsubscribe from a delivered message (RFC 8058)',
  },
};

function tagOf(path: string): string {
  const segments = path.split('/').slice(2);
  const segment = segments.includes('runs') ? 'runs' : (segments[0] ?? '');
  return tagsBySegment[segment]?.name ?? segment.charAt(0).toUpperCase() + segment.slice(1);
}

const schemaRef = (name: string) => `#/components/schemas/${name}`;
const pascalCase = (operation: string) =>
  operation.replace(/(^|-)(\w)/g, (_, _dash: string, letter: string) => letter.toUpperCase());

/**
 * zod writes `z.int()` as bounded by ±(2^53 − 1), which is no bound of the API's: left out, so that
 * an integer shows the bounds its schema really checks (or none).
 */
function realBounds({ jsonSchema }: { jsonSchema: ZodJsonSchema }): void {
  if (jsonSchema.type !== 'integer') return;
  if (jsonSchema.minimum === Number.MIN_SAFE_INTEGER) delete jsonSchema.minimum;
  if (jsonSchema.maximum === Number.MAX_SAFE_INTEGER) delete jsonSchema.maximum;
}

type Named = ReadonlyMap<z.ZodMiniType, string>;

/** Every named schema as a component; references between them point into the components. */
function componentSchemas(named: Named, io: 'input' | 'output'): Record<string, JsonSchema> {
  const registry = z.registry<{ id: string }>();
  for (const [schema, id] of named) registry.add(schema, { id });
  const { schemas } = z.toJSONSchema(registry, {
    io,
    unrepresentable: 'any',
    uri: schemaRef,
    override: realBounds,
  });
  return Object.fromEntries(
    Object.entries(schemas).map(([name, { $schema: _dialect, $id: _id, ...schema }]) => [name, schema]),
  );
}

function jsonSchema(schema: z.ZodMiniType, io: 'input' | 'output'): ZodJsonSchema {
  // Refinements (time zones, cron rules, "exactly one of") have no JSON Schema form: they stay code.
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, {
    io,
    unrepresentable: 'any',
    override: realBounds,
  });
  return rest;
}

const camelCase = (operation: string) =>
  operation.replace(/-(\w)/g, (_, letter: string) => letter.toUpperCase());

function parameters(schema: z.ZodMiniType | undefined, location: 'path' | 'query' | 'header'): JsonSchema[] {
  if (!schema) return [];
  const object = jsonSchema(schema, 'input');
  const required = new Set(object.required);
  return Object.entries(object.properties ?? {}).map(([name, property]) => {
    // Parameters are objects' properties of a known type: never the `true` of "anything".
    const { description, ...propertySchema } = typeof property === 'object' ? property : {};
    return {
      name,
      in: location,
      required: location === 'path' || required.has(name),
      ...(description !== undefined && { description }),
      schema: propertySchema,
    };
  });
}

/** The statuses its access, path and body imply, and those of the operation's own rules. */
function errorStatuses(route: RouteFacts, definition: Definition): ErrorStatus[] {
  const statuses = new Set<ErrorStatus>([400, 500, ...(route.ownErrors ?? []).map((code) => statusOf[code])]);
  if (definition.access !== 'public') for (const status of [401, 403] as const) statuses.add(status);
  // Storage that does not answer, or an identity provider's keys that cannot be fetched.
  if (definition.access !== 'public' || route.tableActions.length > 0) statuses.add(503);
  if (definition.params) statuses.add(404);
  if (definition.body) for (const status of [413, 415] as const) statuses.add(status);
  return [...statuses].sort((a, b) => a - b);
}

function successResponse(route: RouteFacts, definition: Definition, names: Names): [string, JsonSchema] {
  const status = definition.success?.status ?? 200;
  if (status === 204) return ['204', { description: 'Done; no content' }];
  if (definition.success && 'html' in definition.success) {
    return [
      '200',
      {
        description: 'An HTML page',
        headers: {
          'Content-Security-Policy': { required: true, schema: { type: 'string' } },
        },
        content: { 'text/html': { schema: { type: 'string' } } },
      },
    ];
  }
  return [
    String(status),
    {
      description: status === 201 ? 'Created' : 'OK',
      ...(status === 201 && {
        headers: {
          Location: {
            description: 'The path of the new resource',
            required: true,
            schema: { type: 'string' },
          },
        },
      }),
      content: {
        'application/json': {
          schema: { $ref: schemaRef(names.response(answerSchemaOf(route))) },
        },
      },
    },
  ];
}

/** Every JSON answer is described: a route without its schema in lib/openapi/responses.ts fails the build. */
function answerSchemaOf(route: RouteFacts): z.ZodMiniType {
  const schema = responseSchemas[route.operation];
  if (!schema) throw new Error(`No answer schema for ${route.operation} in lib/openapi/responses.ts`);
  return schema;
}

/** The component name of a route's body and answer: the one given, else the operation's. */
interface Names {
  body(schema: z.ZodMiniType): string;
  response(schema: z.ZodMiniType): string;
}

function operationObject(route: RouteFacts, definition: Definition, names: Names): JsonSchema {
  const body = definition.body?.schema;
  return {
    operationId: camelCase(route.operation),
    summary: route.summary,
    tags: [tagOf(route.path)],
    ...(definition.access === 'public' && { security: [] }),
    parameters: [
      ...parameters(definition.params, 'path'),
      ...parameters(definition.query, 'query'),
      ...parameters(definition.headers, 'header'),
    ],
    ...(body && {
      requestBody: {
        required: !definition.body?.optional,
        content: { 'application/json': { schema: { $ref: schemaRef(names.body(body)) } } },
      },
    }),
    responses: Object.fromEntries([
      successResponse(route, definition, names),
      ...errorStatuses(route, definition).map((status) => [
        String(status),
        {
          $ref: `#/components/responses/${status === 503 ? unavailableResponse(route.repeat) : `Error${status}`}`,
        },
      ]),
    ]),
  };
}

function buildOpenApiDocument(definitions: ReadonlyMap<string, Definition>): JsonSchema {
  const inputs = new Map(inputComponents);
  const outputs = new Map(outputComponents);
  const paths: Record<string, Record<string, JsonSchema>> = {};
  for (const route of routes) {
    const definition = definitions.get(route.operation);
    if (!definition) throw new Error(`No handler definition for ${route.operation}`);
    if (definition.route !== route) throw new Error(`functions/${route.operation}.ts declares another route`);
    const ownName =
      (named: Map<z.ZodMiniType, string>, suffix: string) =>
      (schema: z.ZodMiniType): string => {
        const name = named.get(schema) ?? `${pascalCase(route.operation)}${suffix}`;
        named.set(schema, name);
        return name;
      };
    const pathItem = paths[route.path] ?? {};
    paths[route.path] = pathItem;
    pathItem[route.method.toLowerCase()] = operationObject(route, definition, {
      body: ownName(inputs, 'Input'),
      response: ownName(outputs, 'Response'),
    });
  }
  const inputSchemas = componentSchemas(inputs, 'input');
  const outputSchemas = componentSchemas(outputs, 'output');
  const clash = Object.keys(inputSchemas).find((name) => name in outputSchemas);
  if (clash) throw new Error(`Schema component ${clash} names both a request and an answer shape`);
  const usedTags = new Set(routes.map((route) => tagOf(route.path)));
  return {
    openapi: '3.1.0',
    info: {
      title: 'Notifications and embedding admin API',
      version: API_VERSION,
      description:
        'Scheduled dashboard notifications and signed embedding. Every route except this description needs `Authorization: Bearer <credential>`: an API key (`sk-…`, also accepted as `Api-Key <key>`) or a JWT.',
    },
    // GET /v1/spec puts the base URL it was fetched from here; relative, the document stays right anywhere.
    servers: [{ url: '/', description: 'The host that serves this description' }],
    tags: Object.values(tagsBySegment).filter((tag) => usedTags.has(tag.name)),
    security: [{ bearer: [] }],
    paths,
    components: {
      securitySchemes: {
        bearer: {
          type: 'http',
          scheme: 'bearer',
          description: 'An API key (`sk-…`) or a console, platform or embed JWT',
        },
      },
      schemas: { ...outputSchemas, ...inputSchemas },
      responses: Object.fromEntries(
        [
          ...Object.entries(errorDescriptions).map(([status, description]) => [
            `Error${status}`,
            status,
            description,
          ]),
          ...Object.entries(unavailableDescriptions).map(([repeat, description]) => [
            unavailableResponse(repeat as RepeatEffect),
            '503',
            description,
          ]),
        ].map(([name, status, description]) => [
          name,
          {
            description,
            ...(status === '401' && {
              headers: {
                'WWW-Authenticate': { required: true, schema: { type: 'string', const: 'Bearer' } },
              },
            }),
            ...(retryAfterStatuses.has(Number(status)) && {
              headers: {
                'Retry-After': {
                  description: 'Seconds to wait before repeating the request',
                  required: true,
                  schema: { type: 'string', pattern: '^[0-9]+$' },
                },
              },
            }),
            content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
          },
        ]),
      ),
    },
  };
}

/** Loads each route's handler the way the local runtime does, and builds the document from them. */
export async function buildFromFunctions(functionsDirectory: URL): Promise<JsonSchema> {
  const definitions = new Map<string, Definition>();
  for (const route of routes) {
    // Each function module exports its handler (the local runtime loads them the same way).
    const module: { handler: ApiHandler } = await import(
      new URL(`${route.operation}.ts`, functionsDirectory).href
    );
    definitions.set(route.operation, module.handler.definition);
  }
  return buildOpenApiDocument(definitions);
}
