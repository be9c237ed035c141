import { describe, expect, it } from 'vitest';
import { readConfig } from '#lib/config';

const base = { TABLE_NAME: 'notifications' };

const refusal = (variables: Record<string, string>) => {
  try {
    readConfig({ ...base, ...variables });
  } catch (error) {
    return error;
  }
  return undefined;
};

describe('numeric settings', () => {
  it('take their defaults when unset', () => {
    const config = readConfig(base);
    expect(config.dispatchConcurrency).toBe(32);
    expect(config.dispatchWorkerSeconds).toBe(20);
    expect(config.runRetentionDays).toBe(90);
    expect(config.sendNowMinIntervalMs).toBe(10_000);
  });

  it('read whole numbers given as digits', () => {
    const config = readConfig({
      ...base,
      DISPATCH_CONCURRENCY: '3',
      RUN_RETENTION_DAYS: '1',
      DISPATCH_WORKER_SECONDS: '59',
    });
    expect(config).toMatchObject({ dispatchConcurrency: 3, runRetentionDays: 1, dispatchWorkerSeconds: 59 });
  });

  it.each([
    ['DISPATCH_CONCURRENCY', ''],
    ['DISPATCH_CONCURRENCY', 'eight'],
    ['DISPATCH_CONCURRENCY', '1.5'],
    ['DISPATCH_CONCURRENCY', '-1'],
    ['MISFIRE_GRACE_MINUTES', '1e3'],
    ['RUN_RETENTION_DAYS', '0'],
    ['DISPATCH_WORKER_SECONDS', '0'],
    ['DISPATCH_WORKER_SECONDS', '60'],
  ])('refuse %s=%j, naming the variable', (name, value) => {
    const error = refusal({ [name]: value });
    expect(error).toMatchObject({ name: 'ConfigurationError', variables: [name] });
  });
});
