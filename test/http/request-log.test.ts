import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ConflictError, UnavailableError, ValidationError } from '#lib/errors';
import { createPublicHandler } from '#lib/http/create-public-handler';
import { describeError } from '#lib/http/request-log';
import { captureLogs, type LogCapture } from '#test/support/log-capture';
import { invoke, testRoute as route } from '#test/support/middleware';

/** The one log line and the one metrics line each request leaves, whichever way it ends. */

vi.hoisted(() => {
  process.env.LOG_LEVEL = 'info';
  process.env.POWERTOOLS_METRICS_DISABLED = 'false';
});

/** How long each operation takes, on the clock the request log reads. */
const LATENCY_MS = 40;

const endingWith = (outcome: () => unknown) =>
  createPublicHandler({
    route,
    operation: async ({ recordMetric }) => {
      vi.advanceTimersByTime(LATENCY_MS);
      recordMetric('ThingsDone', 2);
      return outcome();
    },
  });

const fail = (error: Error) => () => {
  throw error;
};

let logs: LogCapture;
beforeEach(() => {
  vi.useFakeTimers({ toFake: ['performance'] });
  // Not at zero: the latency is the difference of two readings, not the last one.
  vi.advanceTimersByTime(1_000);
  logs = captureLogs();
});
afterEach(() => {
  logs.end();
  vi.useRealTimers();
});

/** The only line the request logged. */
async function logLineOf(outcome: () => unknown) {
  await invoke(endingWith(outcome));
  const lines = logs.lines();
  expect(lines).toHaveLength(1);
  return lines[0];
}

describe('the request log', () => {
  it('writes an info line for a request served: its route, status, latency, request id and operation', async () => {
    expect(await logLineOf(() => 'done')).toMatchObject({
      level: 'INFO',
      message: 'request served',
      route: 'POST /test',
      status: 200,
      latencyMs: LATENCY_MS,
      requestId: 'request-1',
      operation: 'test-operation',
    });
  });

  it("writes a refusal at info, naming its code and class but not the request's data", async () => {
    const line = await logLineOf(fail(new ValidationError([{ path: 'email', message: 'a@b.c is taken' }])));
    expect(line).toMatchObject({
      level: 'INFO',
      message: 'request refused',
      status: 400,
      code: 'validation_failed',
      errorName: 'ValidationError',
    });
    expect(logs.text()).not.toContain('a@b.c');
  });

  it('writes a failure at error level, with the error, its stack and its cause', async () => {
    const error = new Error('the disk is on fire', { cause: new TypeError('inner') });
    expect(await logLineOf(fail(error))).toMatchObject({
      level: 'ERROR',
      message: 'request failed',
      status: 500,
      code: 'internal',
      error: {
        name: 'Error',
        message: 'the disk is on fire',
        stack: expect.stringContaining('the disk is on fire'),
        cause: { name: 'TypeError', message: 'inner' },
      },
    });
  });

  it('writes an outage as a warning, with what failed', async () => {
    const outage = new UnavailableError('Busy', { cause: new Error('throttled') });
    expect(await logLineOf(fail(outage))).toMatchObject({
      level: 'WARN',
      message: 'request unavailable',
      status: 503,
      code: 'unavailable',
      error: { name: 'UnavailableError', cause: { message: 'throttled' } },
    });
  });
});

describe("a request's metrics", () => {
  it('count a served request as 2xx under its operation, with its latency and business metrics', async () => {
    await invoke(endingWith(() => 'done'));
    expect(logs.metrics()).toEqual([
      expect.objectContaining({
        operation: 'test-operation',
        Responses2xx: 1,
        Responses4xx: 0,
        Responses5xx: 0,
        Latency: LATENCY_MS,
        ThingsDone: 2,
      }),
    ]);
  });

  it('count a 400 and a 409 as 4xx, a 500 and a 503 as 5xx', async () => {
    for (const error of [new ValidationError([]), new ConflictError('Changed')]) {
      await invoke(endingWith(fail(error)));
    }
    for (const error of [new Error('bug'), new UnavailableError()]) {
      await invoke(endingWith(fail(error)));
    }
    expect(
      logs
        .metrics()
        .map(({ Responses2xx, Responses4xx, Responses5xx }) => [Responses2xx, Responses4xx, Responses5xx]),
    ).toEqual([
      [0, 1, 0],
      [0, 1, 0],
      [0, 0, 1],
      [0, 0, 1],
    ]);
  });
});

describe('describeError', () => {
  it('names an error by its class where it leaves its name at "Error", else by its name', () => {
    class DiskError extends Error {}
    const aborted = Object.assign(new Error('stopped'), { name: 'AbortError' });
    expect(describeError(new DiskError('full'))).toMatchObject({ name: 'DiskError', message: 'full' });
    expect(describeError(aborted)).toMatchObject({ name: 'AbortError' });
  });

  it('keeps of anything else thrown its text, or only that it was an object', () => {
    expect(describeError('a string')).toBe('a string');
    expect(describeError({ item: 'secret' })).toBe('non-Error object');
    expect(describeError(null)).toBeUndefined();
    expect(describeError(undefined)).toBeUndefined();
  });

  it('follows causes five deep, so that a cycle of causes cannot hang the log', () => {
    const looping = new Error('again');
    looping.cause = looping;
    let depth = 0;
    for (let described = describeError(looping); described; depth++) {
      described = (described as { cause?: ReturnType<typeof describeError> }).cause;
    }
    expect(depth).toBe(6);
  });
});
