import type { Request } from '@middy/core';
import type { Context } from 'aws-lambda';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { lambdaContextLog, logger } from '#lib/log';

vi.hoisted(() => {
  process.env.LOG_LEVEL = 'warn';
  process.env._X_AMZN_TRACE_ID = 'Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=1';
});

/** The logger's own rules: its level, where each level goes, and lines that never fail to write. */

const written = { stdout: [] as string[], stderr: [] as string[] };
for (const name of ['stdout', 'stderr'] as const) {
  vi.spyOn(process[name], 'write').mockImplementation((chunk: string | Uint8Array) => {
    written[name].push(String(chunk));
    return true;
  });
}
afterEach(() => {
  written.stdout.length = 0;
  written.stderr.length = 0;
});

const context = {
  functionName: 'get-notification',
  invokedFunctionArn: 'arn:aws:lambda:eu-central-1:123456789012:function:get-notification',
  memoryLimitInMB: '512',
  awsRequestId: 'req-1',
} as Context;
const request = { context } as Request<unknown, unknown, Error, Context>;

describe('the logger', () => {
  it('writes nothing below its level, and warnings and errors on stderr', () => {
    logger.info('not at warn');
    logger.warn('a warning');
    expect(written.stdout).toEqual([]);
    expect(written.stderr.map((line) => JSON.parse(line).message)).toEqual(['a warning']);
  });

  it("carries the invocation's context and the request's keys until the request is answered", () => {
    const middleware = lambdaContextLog();
    middleware.before?.(request);
    logger.appendKeys({ requestId: 'api-1', operation: 'get-notification' });
    logger.error('request failed', { status: 500, empty: '', none: null });
    middleware.after?.(request);
    logger.error('later', { count: 10n });
    const [during, after] = written.stderr.map((line) => JSON.parse(line));
    expect(during).toEqual({
      level: 'ERROR',
      message: 'request failed',
      timestamp: expect.any(String),
      service: 'admin-api',
      // No AWS_LAMBDA_INITIALIZATION_TYPE: a process started for its requests, as `npm start` is.
      cold_start: true,
      function_arn: context.invokedFunctionArn,
      function_memory_size: '512',
      function_name: 'get-notification',
      function_request_id: 'req-1',
      xray_trace_id: '1-5759e988-bd862e3fe1be46a994272793',
      requestId: 'api-1',
      operation: 'get-notification',
      status: 500,
    });
    expect(after).not.toHaveProperty('requestId');
    middleware.before?.(request);
    logger.error('the second invocation');
    expect(JSON.parse(written.stderr[2] as string).cold_start).toBe(false);
    expect(after.count).toBe('10');
  });

  it('writes an entry that refers to itself, leaving the cycle out', () => {
    const entry: Record<string, unknown> = { name: 'loop' };
    entry.self = entry;
    logger.error('cycle', { entry });
    expect(JSON.parse(written.stderr[0] as string).entry).toEqual({ name: 'loop' });
  });
});
