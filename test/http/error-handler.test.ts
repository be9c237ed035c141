import { describe, expect, it } from 'vitest';
import {
  ConflictError,
  TooManyRequestsError,
  UnauthorizedError,
  UnavailableError,
  ValidationError,
} from '#lib/errors';
import { createPublicHandler } from '#lib/http/create-public-handler';
import { apiEvent, invoke, JSON_HEADERS, testRoute as route } from '#test/support/middleware';

/** Each failure as the error handler answers it: status, headers and the contract's JSON body. */

const failingWith = (error: unknown) =>
  createPublicHandler({
    route,
    operation: async () => {
      throw error;
    },
  });

const answerTo = (error: unknown, event = apiEvent()) => invoke(failingWith(error), event);

describe('the error handler', () => {
  it("answers a service error with its code's status, its message and the request id", async () => {
    expect(await answerTo(new ConflictError('The notification changed meanwhile'))).toEqual({
      statusCode: 409,
      headers: JSON_HEADERS,
      body: JSON.stringify({
        message: 'The notification changed meanwhile',
        code: 'conflict',
        requestId: 'request-1',
      }),
    });
  });

  it('lists the field problems of a refused request', async () => {
    const problems = [{ path: 'hour', message: 'must be at most 23' }];
    const response = await answerTo(new ValidationError(problems));
    expect(response.statusCode).toBe(400);
    expect(JSON.parse(response.body ?? '')).toEqual({
      message: 'hour: must be at most 23',
      code: 'validation_failed',
      errors: problems,
      requestId: 'request-1',
    });
  });

  it('answers an unexpected error 500 without a word of it', async () => {
    const response = await answerTo(new TypeError('secret table name in a message'));
    expect(response.statusCode).toBe(500);
    expect(JSON.parse(response.body ?? '')).toEqual({
      message: 'Internal server error',
      code: 'internal',
      requestId: 'request-1',
    });
  });

  it('names the Bearer scheme to a caller without a valid credential', async () => {
    expect(await answerTo(new UnauthorizedError())).toMatchObject({
      statusCode: 401,
      headers: { ...JSON_HEADERS, 'www-authenticate': 'Bearer' },
    });
  });

  it('tells when to retry an outage and a request that came too soon', async () => {
    const outage = new UnavailableError('Storage is throttled', { retryAfterSeconds: 4 });
    expect(await answerTo(outage)).toMatchObject({ statusCode: 503, headers: { 'retry-after': '4' } });
    const tooSoon = new TooManyRequestsError('Sent a minute ago', 30);
    expect(await answerTo(tooSoon)).toMatchObject({ statusCode: 429, headers: { 'retry-after': '30' } });
  });

  it('answers an event without a request context, leaving the request id out', async () => {
    const response = await answerTo(new ConflictError('Changed'), apiEvent({ requestContext: undefined }));
    expect(JSON.parse(response.body ?? '')).toEqual({ message: 'Changed', code: 'conflict' });
  });
});
