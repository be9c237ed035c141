import fc from 'fast-check';

/**
 * fast-check arbitraries read off a zod (mini) schema: values of the schema's shape, mostly within
 * its lengths, ranges, enums and patterns, so that many generated requests get past validation and
 * reach the store. Refinements zod runs as code are not modelled; what fails them is one more
 * refused request. Named fields are mostly drawn from a pool (ids and names the fixture holds).
 */

type Def = { type: string } & Record<string, unknown>;
type Check = { check?: string } & Record<string, unknown>;

export type FieldPools = Record<string, fc.Arbitrary<unknown>>;

const defOf = (schema: unknown) => (schema as { _zod: { def: Def } })._zod.def;
const checksOf = (def: Def): Check[] =>
  ((def.checks as { _zod: { def: Check } }[] | undefined) ?? []).map((check) => check._zod.def);

interface Bounds {
  minLength?: number;
  maxLength?: number;
  min?: number;
  max?: number;
  pattern?: RegExp;
}

function boundsOf(def: Def): Bounds {
  const bounds: Bounds = {};
  for (const check of checksOf(def)) {
    if (check.check === 'min_length') bounds.minLength = check.minimum as number;
    else if (check.check === 'max_length') bounds.maxLength = check.maximum as number;
    else if (check.check === 'greater_than')
      bounds.min = (check.value as number) + (check.inclusive ? 0 : Number.EPSILON);
    else if (check.check === 'less_than')
      bounds.max = (check.value as number) - (check.inclusive ? 0 : Number.EPSILON);
    else if (check.check === 'string_format' && check.format === 'regex')
      bounds.pattern = check.pattern as RegExp;
  }
  return bounds;
}

/** Short lists and texts: a request's size is exercised by the hostile mutations, not here. */
const SMALL = 3;

function stringArbitrary(bounds: Bounds): fc.Arbitrary<string> {
  const maxLength = Math.min(bounds.maxLength ?? 24, 24);
  const minLength = Math.min(bounds.minLength ?? 0, maxLength);
  if (bounds.pattern) {
    return fc
      .stringMatching(bounds.pattern)
      .filter((text) => text.length >= minLength && text.length <= (bounds.maxLength ?? Infinity));
  }
  return fc.string({ minLength, maxLength, unit: fc.constantFrom('a', 'Z', '.', ' ', '€', '😀', '-', '0') });
}

/**
 * An optional field is left out five times in six: objects with many optional fields, some of them
 * exclusive of one another, still come out valid often enough.
 */
const absentMostly = (value: fc.Arbitrary<unknown>) =>
  fc.oneof({ weight: 5, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: value });

export function arbitraryFor(schema: unknown, pools: FieldPools = {}): fc.Arbitrary<unknown> {
  const def = defOf(schema);
  switch (def.type) {
    case 'string':
      return stringArbitrary(boundsOf(def));
    case 'number': {
      const { min = -1e6, max = 1e6 } = boundsOf(def);
      return def.format === 'safeint' || def.format === 'int'
        ? fc.integer({ min: Math.ceil(Math.max(min, -1e6)), max: Math.floor(Math.min(max, 1e6)) })
        : fc.double({ min, max, noNaN: true, noDefaultInfinity: true });
    }
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'enum':
      return fc.constantFrom(...Object.values(def.entries as Record<string, string>));
    case 'literal':
      return fc.constantFrom(...(def.values as unknown[]));
    case 'optional':
      return absentMostly(arbitraryFor(def.innerType, pools));
    case 'nullable':
      return fc.option(arbitraryFor(def.innerType, pools), { nil: null, freq: 5 });
    case 'pipe':
      return arbitraryFor(def.in, pools);
    case 'union':
      return fc.oneof(...(def.options as unknown[]).map((option) => arbitraryFor(option, pools)));
    case 'array': {
      const { minLength = 0, maxLength = SMALL } = boundsOf(def);
      return fc.array(arbitraryFor(def.element, pools), {
        minLength,
        maxLength: Math.max(minLength, Math.min(maxLength, SMALL)),
      });
    }
    case 'object': {
      const shape = def.shape as Record<string, unknown>;
      const fields = Object.fromEntries(
        Object.entries(shape).map(([name, field]) => {
          const derived = arbitraryFor(field, pools);
          const pool = pools[name];
          if (!pool) return [name, derived];
          // Mostly the pool, sometimes what the schema alone allows.
          const pooled = defOf(field).type === 'optional' ? absentMostly(pool) : pool;
          return [name, fc.oneof({ weight: 4, arbitrary: pooled }, { weight: 1, arbitrary: derived })];
        }),
      );
      // Absent rather than undefined: JSON has no undefined.
      return fc
        .record(fields)
        .map((record) =>
          Object.fromEntries(Object.entries(record).filter(([, value]) => value !== undefined)),
        );
    }
    case 'record':
      return fc.dictionary(stringArbitrary({ maxLength: 8 }), arbitraryFor(def.valueType, pools), {
        maxKeys: SMALL,
      });
    default:
      // unknown, any and whatever a later schema uses: any JSON.
      return fc.jsonValue({ maxDepth: 2 });
  }
}
