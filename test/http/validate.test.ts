import { describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import { ValidationError } from '#lib/errors';
import { pathId } from '#lib/http/schemas/common';
import { type RequestSchemas, validate } from '#lib/http/validate';
import { apiEvent, throughMiddlewares } from '#test/support/middleware';

const params = z.strictObject({ id: pathId });
const query = z.strictObject({ limit: z.optional(z.string()) });
const headers = z.object({ 'idempotency-key': z.string() });
const body = z.strictObject({ name: z.string() });

type Part = z.ZodMiniType | undefined;
type Schemas = RequestSchemas<Part, Part, Part, Part>;

/** The validated input the operation receives. */
const inputOf = async (schemas: Schemas, event: Parameters<typeof apiEvent>[0]) => {
  const { context } = await throughMiddlewares([validate(schemas)], apiEvent(event));
  return (context as typeof context & { input: unknown }).input;
};

/** The problems of a refused request, in the order they are reported. */
const problemsOf = async (schemas: Schemas, event: Parameters<typeof apiEvent>[0]) => {
  const error = await inputOf(schemas, event).then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(ValidationError);
  return (error as ValidationError).problems;
};

describe('validate', () => {
  it('hands on the parsed values of every part the operation declares', async () => {
    const input = await inputOf(
      { params, query, headers, body },
      {
        pathParameters: { id: '7' },
        queryStringParameters: { limit: '10' },
        headers: { 'idempotency-key': 'k-1', 'x-other': 'passes' },
        body: { name: 'Ada' } as unknown as string,
      },
    );
    expect(input).toEqual({
      params: { id: 7 },
      query: { limit: '10' },
      headers: { 'idempotency-key': 'k-1' },
      body: { name: 'Ada' },
    });
  });

  it('leaves undeclared parts undefined', async () => {
    expect(await inputOf({}, { pathParameters: { id: '7' }, body: 'ignored' })).toEqual({
      params: undefined,
      query: undefined,
      headers: undefined,
      body: undefined,
    });
  });

  it('checks absent path parameters, query and headers as empty objects', async () => {
    const optionalOnly = z.strictObject({ id: z.optional(z.string()) });
    expect(
      await inputOf(
        { params: optionalOnly, query: optionalOnly, headers: optionalOnly },
        { pathParameters: undefined, queryStringParameters: undefined, headers: undefined },
      ),
    ).toEqual({ params: {}, query: {}, headers: {}, body: undefined });
  });

  it('refuses any query parameter when the operation declares none', async () => {
    expect(await problemsOf({}, { queryStringParameters: { limt: '5' } })).toEqual([
      { path: 'limt', message: 'is not a known field' },
    ]);
  });

  it('reports the problems of every part at once: path, query, headers, then body', async () => {
    expect(
      await problemsOf(
        { params, query, headers, body },
        {
          pathParameters: { id: 'seven' },
          queryStringParameters: { limit: '10', extra: 'x' },
          headers: {},
          body: { name: 5 } as unknown as string,
        },
      ),
    ).toEqual([
      { path: 'id', message: 'must be a positive integer' },
      { path: 'extra', message: 'is not a known field' },
      { path: 'idempotency-key', message: 'is required' },
      { path: 'name', message: expect.stringMatching(/string/) },
    ]);
  });

  it.each([
    ['path parameters', { params }, { pathParameters: { id: '0' } }, 'id'],
    ['headers', { headers }, { headers: {} }, 'idempotency-key'],
    ['body', { body }, { body: {} as unknown as string }, 'name'],
  ] as const)('refuses a request whose %s alone are wrong', async (_part, schemas, event, path) => {
    expect((await problemsOf(schemas, event)).map((problem) => problem.path)).toEqual([path]);
  });
});
