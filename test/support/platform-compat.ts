/**
 * Compares this API's description with the platform's published facts (test/fixtures/
 * platform-operations.json): what a client written for the platform sends must be accepted here, and
 * what this API answers must be what such a client reads. Both sides are first put in one small form
 * (type, nullable, enum, items, properties, required), then walked; every departure is one line
 * (`<where>: <kind>`), which the fixture's list of deliberate differences must name.
 */

// biome-ignore lint/suspicious/noExplicitAny: both documents are read by path; a wrong path fails the comparison.
type Json = Record<string, any>;

/** A schema in the compared form. */
interface Shape {
  type?: string;
  nullable?: boolean;
  enum?: unknown[];
  items?: Shape;
  properties?: Record<string, Shape>;
  required?: string[];
  anyOf?: Shape[];
  maxItems?: number;
  maxLength?: number;
}

/** The platform's facts: operations, and schemas by name in the compared form with `ref`s. */
export interface PlatformFacts {
  operations: {
    method: string;
    path: string;
    operationId: string;
    parameters: { name: string; in: string; required: boolean }[];
    requestBody: { schema: string; required: boolean } | null;
    responses: Record<string, string | null>;
  }[];
  schemas: Record<string, Json>;
  differences: { where: string; kind: string; why: string }[];
}

function resolvePlatform(facts: PlatformFacts, node: Json, seen: Set<string> = new Set()): Shape {
  if (node.ref) {
    const named = facts.schemas[node.ref];
    if (!named) throw new Error(`No platform schema ${node.ref}`);
    if (seen.has(node.ref)) return { type: 'object' };
    const shape = resolvePlatform(facts, named, new Set([...seen, node.ref]));
    return node.nullable ? { ...shape, nullable: true } : shape;
  }
  const shape: Shape = {};
  if (node.properties) {
    shape.type = 'object';
    shape.required = node.required ?? [];
    shape.properties = Object.fromEntries(
      Object.entries(node.properties as Record<string, Json>).map(([name, property]) => [
        name,
        resolvePlatform(facts, property, seen),
      ]),
    );
  } else if (node.anyOf) {
    shape.anyOf = (node.anyOf as Json[]).map((alternative) => resolvePlatform(facts, alternative, seen));
  } else {
    shape.type = node.type;
  }
  if (node.nullable) shape.nullable = true;
  if (node.enum) shape.enum = node.enum;
  if (node.items) shape.items = resolvePlatform(facts, node.items, seen);
  if (node.maxItems !== undefined) shape.maxItems = node.maxItems;
  return shape;
}

/** Our JSON Schema (components referenced by `$ref`) in the compared form. */
function resolveOurs(document: Json, node: Json, seen: Set<string> = new Set()): Shape {
  if (node.$ref) {
    const name = (node.$ref as string).replace('#/components/schemas/', '');
    if (seen.has(name)) return { type: 'object' };
    return resolveOurs(document, document.components.schemas[name], new Set([...seen, name]));
  }
  const alternatives = (node.anyOf ?? node.oneOf) as Json[] | undefined;
  if (alternatives) {
    const nullable = alternatives.some((alternative) => alternative.type === 'null');
    const rest = alternatives.filter((alternative) => alternative.type !== 'null');
    const shape: Shape =
      rest.length === 1
        ? resolveOurs(document, rest[0] as Json, seen)
        : { anyOf: rest.map((alternative) => resolveOurs(document, alternative, seen)) };
    return nullable ? { ...shape, nullable: true } : shape;
  }
  const shape: Shape = {};
  const types = Array.isArray(node.type) ? (node.type as string[]) : node.type ? [node.type as string] : [];
  const nonNull = types.filter((type) => type !== 'null');
  if (types.includes('null')) shape.nullable = true;
  if (nonNull.length > 1) {
    shape.anyOf = nonNull.map((type) => ({ type }));
  } else {
    // `{type: "null"}` alone takes null only.
    shape.type = nonNull[0] ?? (node.properties ? 'object' : types.includes('null') ? 'null' : 'any');
  }
  if (node.enum) shape.enum = node.enum;
  if (node.const !== undefined) shape.enum = [node.const];
  if (node.items) shape.items = resolveOurs(document, node.items, seen);
  if (node.properties) {
    shape.properties = Object.fromEntries(
      Object.entries(node.properties as Record<string, Json>).map(([name, property]) => [
        name,
        resolveOurs(document, property, seen),
      ]),
    );
    shape.required = node.required ?? [];
  }
  if (node.maxItems !== undefined) shape.maxItems = node.maxItems;
  if (node.maxLength !== undefined) shape.maxLength = node.maxLength;
  return shape;
}

/** Whether a value of type `given` is always a value of type `accepted`. */
const typeFits = (given: string | undefined, accepted: string | undefined) =>
  accepted === 'any' || given === accepted || (given === 'integer' && accepted === 'number');

/**
 * The alternatives of a shape; several objects (a union told apart by `type`) read as one object
 * whose properties take what any of them takes and whose required ones are those all require.
 */
function alternativesOf(shape: Shape): Shape[] {
  const alternatives = (shape.anyOf ?? [shape]).map((alternative) =>
    shape.nullable ? { ...alternative, nullable: true } : alternative,
  );
  const objects = alternatives.filter((alternative) => alternative.properties);
  if (objects.length < 2) return alternatives;
  const names = [...new Set(objects.flatMap((object) => Object.keys(object.properties ?? {})))];
  const merged: Shape = {
    type: 'object',
    required: (objects[0]?.required ?? []).filter((name) =>
      objects.every((object) => object.required?.includes(name)),
    ),
    properties: Object.fromEntries(
      names.map((name) => {
        const shapes = objects.flatMap((object) =>
          object.properties?.[name] ? [object.properties[name] as Shape] : [],
        );
        const enums = shapes.every((one) => one.enum)
          ? [...new Set(shapes.flatMap((one) => one.enum ?? []))]
          : undefined;
        const nullable = shapes.some((x) => x.nullable);
        const one: Shape =
          enums && shapes.every((x) => x.type === shapes[0]?.type)
            ? { type: shapes[0]?.type, enum: enums }
            : { anyOf: shapes.flatMap(alternativesOf) };
        return [name, nullable ? { ...one, nullable } : one];
      }),
    ),
  };
  return [...alternatives.filter((alternative) => !alternative.properties), merged];
}

/**
 * Departures of `ours` from `platform` for values a platform client sends (`input`: each must be
 * accepted here) or reads (`output`: each answer must be one it can read).
 */
function compareShapes(platform: Shape, ours: Shape, where: string, direction: 'input' | 'output'): string[] {
  const problems: string[] = [];
  const [sender, receiver] = direction === 'input' ? [platform, ours] : [ours, platform];
  if (sender.nullable && !receiver.nullable)
    problems.push(`${where}: ${direction === 'input' ? 'refuses' : 'answers'} null`);
  if (receiver.type === 'any' && !receiver.anyOf)
    return problems.filter((problem) => !problem.endsWith('null'));
  // Each alternative the sender may send needs one the receiver takes.
  for (const alternative of alternativesOf(sender)) {
    if (alternative.type === 'any' && direction === 'input') {
      const takesAny = alternativesOf(receiver).some((candidate) => candidate.type === 'any');
      if (!takesAny) problems.push(`${where}: takes fewer values than any JSON`);
      continue;
    }
    const candidates = alternativesOf(receiver).filter((candidate) =>
      typeFits(alternative.type, candidate.type),
    );
    if (candidates.length === 0) {
      problems.push(
        `${where}: type ${alternative.type ?? 'union'} is not ${direction === 'input' ? 'accepted' : 'expected'}`,
      );
      continue;
    }
    // The alternative fits when one candidate takes it whole; else the first candidate's departures count.
    const found = candidates.map((candidate) =>
      alternativeProblems(alternative, candidate, where, direction),
    );
    problems.push(...(found.find((one) => one.length === 0) ?? found[0] ?? []));
  }
  return problems;
}

function alternativeProblems(
  alternative: Shape,
  match: Shape,
  where: string,
  direction: 'input' | 'output',
): string[] {
  const problems: string[] = [];
  if (match.type === 'any') return problems;
  if (alternative.enum && match.enum) {
    for (const value of alternative.enum) {
      if (!match.enum.includes(value))
        problems.push(
          `${where}: enum value ${String(value)} ${direction === 'input' ? 'refused' : 'unknown to the platform'}`,
        );
    }
  }
  if (
    direction === 'input' &&
    match.maxItems !== undefined &&
    (alternative.maxItems ?? Infinity) > match.maxItems
  ) {
    problems.push(`${where}: at most ${match.maxItems} items`);
  }
  if (direction === 'input' && match.maxLength !== undefined)
    problems.push(`${where}: at most ${match.maxLength} characters`);
  if (alternative.items && match.items)
    problems.push(
      ...compareShapes(
        direction === 'input' ? alternative.items : match.items,
        direction === 'input' ? match.items : alternative.items,
        `${where}[]`,
        direction,
      ),
    );
  if (alternative.properties || match.properties)
    problems.push(
      ...compareObjects(
        direction === 'input' ? alternative : match,
        direction === 'input' ? match : alternative,
        where,
        direction,
      ),
    );
  return problems;
}

function compareObjects(
  platform: Shape,
  ours: Shape,
  where: string,
  direction: 'input' | 'output',
): string[] {
  const problems: string[] = [];
  const platformProperties = platform.properties ?? {};
  const ourProperties = ours.properties ?? {};
  const prefix = where ? `${where}.` : '';
  for (const [name, property] of Object.entries(platformProperties)) {
    const ourProperty = ourProperties[name];
    if (!ourProperty) {
      if (direction === 'input') problems.push(`${prefix}${name}: refused (unknown field)`);
      else if (platform.required?.includes(name)) problems.push(`${prefix}${name}: missing`);
      continue;
    }
    if (direction === 'output' && platform.required?.includes(name) && !ours.required?.includes(name)) {
      problems.push(`${prefix}${name}: not always answered`);
    }
    if (direction === 'input' && ours.required?.includes(name) && !platform.required?.includes(name)) {
      problems.push(`${prefix}${name}: required here`);
    }
    problems.push(...compareShapes(property, ourProperty, `${prefix}${name}`, direction));
  }
  for (const name of Object.keys(ourProperties)) {
    if (platformProperties[name]) continue;
    if (direction === 'output') problems.push(`${prefix}${name}: answered beyond the platform's fields`);
    else if (ours.required?.includes(name))
      problems.push(`${prefix}${name}: required here, unknown to the platform`);
  }
  return problems;
}

const operationName = (method: string, path: string) => `${method} ${path}`;

/** Every departure of our description from the platform's facts, one line each. */
export function departures(facts: PlatformFacts, document: Json): string[] {
  const problems: string[] = [];
  const served = new Set<string>();
  for (const operation of facts.operations) {
    const name = operationName(operation.method, operation.path);
    served.add(name);
    const ours = document.paths[operation.path]?.[operation.method.toLowerCase()] as Json | undefined;
    if (!ours) {
      problems.push(`${name}: not served`);
      continue;
    }
    const ourSuccess = Object.keys(ours.responses).filter((status) => status.startsWith('2'));
    for (const status of ourSuccess) {
      if (!(status in operation.responses)) {
        const theirs = Object.keys(operation.responses).join(' or ');
        problems.push(`${name}: answers ${status} (platform: ${theirs})`);
      }
    }
    const ourParameters = (ours.parameters ?? []) as Json[];
    for (const parameter of operation.parameters) {
      const match = ourParameters.find(
        (candidate) => candidate.name === parameter.name && candidate.in === parameter.in,
      );
      if (!match) problems.push(`${name}: ${parameter.in} parameter ${parameter.name} refused`);
      else if (match.required && !parameter.required)
        problems.push(`${name}: ${parameter.in} parameter ${parameter.name} required here`);
    }
    for (const parameter of ourParameters) {
      if (parameter.required && !operation.parameters.some((theirs) => theirs.name === parameter.name)) {
        problems.push(
          `${name}: ${parameter.in} parameter ${parameter.name} required here, unknown to the platform`,
        );
      }
    }
    if (operation.requestBody) {
      const body = ours.requestBody as Json | undefined;
      if (!body) problems.push(`${name}: takes no body`);
      else {
        if (body.required && !operation.requestBody.required) problems.push(`${name}: body required here`);
        const platformShape = resolvePlatform(facts, { ref: operation.requestBody.schema });
        const ourShape = resolveOurs(document, body.content['application/json'].schema);
        problems.push(...compareShapes(platformShape, ourShape, operation.requestBody.schema, 'input'));
      }
    }
    for (const status of ourSuccess) {
      const theirs =
        operation.responses[status] ?? Object.values(operation.responses).find((schema) => schema);
      const schema = ours.responses[status]?.content?.['application/json']?.schema;
      if (!theirs || !schema) continue;
      problems.push(
        ...compareShapes(
          resolvePlatform(facts, { ref: theirs }),
          resolveOurs(document, schema),
          theirs,
          'output',
        ),
      );
    }
  }
  for (const [path, item] of Object.entries(document.paths as Record<string, Json>)) {
    for (const method of Object.keys(item)) {
      const name = operationName(method.toUpperCase(), path);
      if (!served.has(name)) problems.push(`${name}: not on the platform`);
    }
  }
  return [...new Set(problems)].sort();
}

/** Whether a listed difference covers a departure: the same text, `*` standing for any run of characters. */
export const covers = (listed: string, departure: string) =>
  new RegExp(
    `^${listed
      .split('*')
      .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
      .join('.*')}$`,
  ).test(departure);

/** The platform's schema of an answer as JSON Schema (extra fields allowed), to check real answers with. */
export function platformJsonSchema(facts: PlatformFacts, name: string): Json {
  const convert = (node: Json): Json => {
    let schema: Json;
    if (node.ref) schema = { $ref: `#/$defs/${node.ref}` };
    else if (node.anyOf) schema = { anyOf: (node.anyOf as Json[]).map(convert) };
    else if (node.properties) {
      schema = {
        type: 'object',
        required: node.required ?? [],
        properties: Object.fromEntries(
          Object.entries(node.properties as Record<string, Json>).map(([key, value]) => [
            key,
            convert(value),
          ]),
        ),
      };
    } else if (node.enum) schema = { enum: node.enum };
    else if (node.type === 'any') schema = {};
    else {
      schema = { type: node.type };
      if (node.items) schema.items = convert(node.items);
    }
    return node.nullable ? { anyOf: [schema, { type: 'null' }] } : schema;
  };
  return {
    $ref: `#/$defs/${name}`,
    $defs: Object.fromEntries(Object.entries(facts.schemas).map(([key, value]) => [key, convert(value)])),
  };
}
